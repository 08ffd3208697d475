// Shared by the harness and the corpus maker: the key that fixed-key inputs
// are parsed under, so the valid seeds get past the key check.
#pragma once

static const char kFuzzKey[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
