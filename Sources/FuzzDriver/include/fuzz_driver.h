#ifndef LOOM_FUZZ_DRIVER_H
#define LOOM_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, in every -fsanitize=fuzzer link since LLVM 11). Declared
/// here, called only by the fuzz build (-D LOOM_FUZZING): the fuzz executables keep their own
/// `main` (SwiftPM aliases `main` to the module's entry point), which hands over to it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
