#pragma once
// What the stand-in's model runtime (StandinRuntime.cpp) and its matmul API (StandinMatmul.cpp) share: core masks,
// and the zero-copy buffers of matmul contexts (rknn_create_mem / rknn_destroy_mem take either kind of context).
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include "standin_rknn_api.h"

namespace npuwb::standin {

/// One line on stderr, naming the library as a stand-in.
void say(const std::string& message);

/// The integer a caller put in an enum-typed field or argument. Callers may pass any number (the vendor answers an
/// unknown one with an error code); reading it as the enum is undefined past the enumerators' range.
template <class Enum> std::underlying_type_t<Enum> rawValue(const Enum& value) {
    std::underlying_type_t<Enum> raw;
    std::memcpy(&raw, &value, sizeof raw);
    return raw;
}

/// Runs `body` and maps what it throws to an error code (never lets an exception cross the C boundary).
template <class F> int guarded(const char* function, int errorCode, F&& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        say(std::string(function) + ": out of memory");
        return RKNN_ERR_MALLOC_FAIL;
    } catch (const std::exception& e) {
        say(std::string(function) + ": " + e.what());
        return errorCode;
    }
}

/// Core masks a chip with `cores` NPU cores has (RKNN SDK user guide V2.5.0, rknn_set_core_mask: multi-core chips
/// only; a single-core chip takes AUTO and CORE_0).
bool coreMaskValid(int mask, int64_t cores);

/// Whether `handle` is a live matmul context (rknn_matmul_create*).
bool isMatmulContext(rknn_context handle);
/// A buffer of a matmul context is being destroyed: it is no longer bound to A, B or C.
void unbindMatmulMem(rknn_context handle, const rknn_tensor_mem* mem);

}  // namespace npuwb::standin
