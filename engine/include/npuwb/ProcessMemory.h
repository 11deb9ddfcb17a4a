#pragma once
// Process-wide memory policy for the engine's executables.

namespace npuwb {

/// Keeps large blocks (weights being packed, protobuf buffers, per-run tensors above 128 KiB) in their own
/// mappings, returned to the system when freed. glibc otherwise raises its mmap threshold after the first large
/// free, and later large buffers then stay in the heap after use: a model's weights counted two or three times in
/// peak RSS. Call once at the start of main().
void returnLargeFreedBlocksToSystem();

/// For a loop that frees and reallocates the same large buffers every iteration (a data set's sample inputs and
/// outputs in calibration and its inference baseline, a reference learning run's activations, profileModel's timed
/// runs and their outputs): while one of these
/// lives, freed blocks stay in the heap for the next iteration instead of being unmapped and zero-faulted again.
/// When the last one ends, the heap is trimmed and returnLargeFreedBlocksToSystem's policy applies again.
class ReuseFreedBlocks {
public:
    ReuseFreedBlocks();
    ~ReuseFreedBlocks();
    ReuseFreedBlocks(const ReuseFreedBlocks&) = delete;
    ReuseFreedBlocks& operator=(const ReuseFreedBlocks&) = delete;
};

}  // namespace npuwb
