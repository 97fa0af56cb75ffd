// The stb_image implementation (Debian's libstb-dev header), in its own file so
// that sanitizer builds can leave UBSan off for third-party code.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_GIF
#define STBI_NO_PSD
#define STBI_NO_PIC
#define STBI_NO_HDR
#define STBI_NO_TGA
// Zeroed allocations: stb_image 2.27 decodes a JPEG scan with Huffman tables
// that no DHT marker defined, reading their uninitialised bytes as lookup
// limits and offsets (a wild read, found by fuzz_image: the crash depends on
// what the heap held before). Zeroed tables decode as all-zero symbols instead
// (tests/fuzz/README.md, findings).
#include <cstdlib>
#define STBI_MALLOC(sz) calloc(1, (sz))
#define STBI_REALLOC(p, newsz) realloc((p), (newsz))
#define STBI_FREE(p) free(p)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
