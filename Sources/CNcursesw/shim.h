#ifndef CHAINLAB_CNCURSESW_SHIM_H
#define CHAINLAB_CNCURSESW_SHIM_H

// Without these two, get_wch, wint_t, cchar_t and the wide-character functions stay hidden.
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>

#if __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

// Swift 6 rejects curses' mutable globals and does not import its function-like or
// bit-shifting macros, so the backend reaches them through these wrappers.

static inline WINDOW *cn_stdscr(void) { return stdscr; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }

static inline int cn_getmaxx(WINDOW *window) {
    int height, width;
    getmaxyx(window, height, width);
    (void)height;
    return width;
}

static inline int cn_getmaxy(WINDOW *window) {
    int height, width;
    getmaxyx(window, height, width);
    (void)width;
    return height;
}

static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }

/// KEY_MOUSE, the key code curses gives a mouse report it decodes itself.
static inline int cn_key_mouse(void) { return KEY_MOUSE; }

/// KEY_F(n), the key code of function key n.
static inline int cn_key_f(int n) { return KEY_F(n); }

/// A screen on the process's own stdin/stdout; NULL (instead of exiting, as initscr does)
/// when the terminal cannot be initialised.
static inline SCREEN *cn_newterm(void) { return newterm(NULL, stdout, stdin); }

/// Adopts the user's locale so wide characters and UTF-8 box drawing work.
static inline void cn_use_environment_locale(void) { setlocale(LC_ALL, ""); }

/// The codeset of the current locale, such as "UTF-8" or "ANSI_X3.4-1968".
static inline const char *cn_locale_codeset(void) { return nl_langinfo(CODESET); }

#endif
