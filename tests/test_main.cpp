// SPDX-License-Identifier: MIT
// doctest's main: every *_test.cpp registers its own cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
