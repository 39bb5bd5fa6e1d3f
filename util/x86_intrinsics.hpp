// <immintrin.h>, for code that runs AVX2 or AVX-512 only where the
// processor has it. GCC 12's AVX-512 intrinsics start from an "undefined"
// vector that -Wmaybe-uninitialized takes for a read of one (GCC bug
// 105593): the warning is off for the header alone.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
