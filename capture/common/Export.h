#pragma once
// A function the program (or another Sightline module) may bind to: our modules build with
// hidden visibility, and only what carries this is exported.
#define SL_EXPORT extern "C" __attribute__((visibility("default")))
