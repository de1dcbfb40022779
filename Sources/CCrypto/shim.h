#ifndef CHAINLAB_CCRYPTO_SHIM_H
#define CHAINLAB_CCRYPTO_SHIM_H
#include <openssl/sha.h>
#endif
