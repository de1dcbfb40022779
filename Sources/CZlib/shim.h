#ifndef CHAINLAB_CZLIB_SHIM_H
#define CHAINLAB_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 and deflateInit2 are macros, which Swift does not import. */
static inline int chainlab_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int chainlab_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
