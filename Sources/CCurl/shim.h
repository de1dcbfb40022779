#ifndef CHAINLAB_CCURL_SHIM_H
#define CHAINLAB_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one
   function per argument type. */
typedef size_t (*cl_data_callback)(char *, size_t, size_t, void *);

static inline CURLcode cl_set_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode cl_set_offset(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode cl_set_pointer(CURL *handle, CURLoption option, const void *value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode cl_set_data_callback(CURL *handle, CURLoption option, cl_data_callback value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode cl_set_progress_callback(CURL *handle, curl_xferinfo_callback value) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value); }

/* The CA bundle libcurl verifies with when told nothing: its build's default. */
static inline const char *cl_default_ca_file(CURL *handle) {
    char *path = NULL;
    return curl_easy_getinfo(handle, CURLINFO_CAINFO, &path) == CURLE_OK ? path : NULL;
}
#endif
