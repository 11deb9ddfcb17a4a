#pragma once
// NumPy .npy files <-> Tensor: the exchange format with ONNX Runtime scripts and the CLI's `run --input`.
// Supports C-order, little-endian float32/float16/float64, int8/uint8/int16/uint16/int32/uint32/int64/uint64
// and bool; anything else (Fortran order, big endian, objects, bad headers) throws InvalidInput naming the file.
#include <string>
#include <string_view>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

/// Reads a .npy file; throws Error(Io) when unreadable, Error(InvalidInput) naming `path` when malformed.
Tensor readNpy(const std::string& path);
/// Parses .npy bytes; `label` (usually the file name) appears in every error message.
Tensor parseNpy(std::string_view bytes, const std::string& label);

/// Serialises as .npy version 1.0 (2.0 when the header needs it); throws Unsupported for other dtypes.
std::string serializeNpy(const Tensor& tensor);
/// Writes atomically (temporary file + rename), so a reader never sees a half-written file.
void writeNpy(const std::string& path, const Tensor& tensor);

}  // namespace npuwb
