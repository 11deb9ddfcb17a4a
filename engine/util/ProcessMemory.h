#pragma once
// Process-wide memory policy for the engine's executables.

namespace npuwb {

/// Keeps large blocks (weights being packed, protobuf buffers, per-run tensors above 128 KiB) in their own
/// mappings, returned to the system when freed. glibc otherwise raises its mmap threshold after the first large
/// free, and later large buffers then stay in the heap after use: a model's weights counted two or three times in
/// peak RSS. Call once at the start of main().
void returnLargeFreedBlocksToSystem();

}  // namespace npuwb
