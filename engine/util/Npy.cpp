#include "npuwb/Npy.h"
#include "npuwb/Limits.h"

#include <bit>
#include <cctype>
#include <cstring>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb {
namespace {

static_assert(std::endian::native == std::endian::little, "npy I/O copies little-endian data as is");

constexpr std::string_view kMagic = "\x93NUMPY";

struct DescrEntry {
    const char* code;  // type code without the byte-order character
    DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"f4", DType::F32}, {"f2", DType::F16}, {"f8", DType::F64}, {"i1", DType::I8},  {"u1", DType::U8},
    {"i2", DType::I16}, {"u2", DType::U16}, {"i4", DType::I32}, {"u4", DType::U32}, {"i8", DType::I64},
    {"u8", DType::U64}, {"b1", DType::Bool},
};

[[noreturn]] void bad(const std::string& label, const std::string& what) {
    failInput("npy file '" + label + "': " + what);
}

// The header is a Python dict literal; we only need three keys, so a tiny scanner beats a full parser.
class HeaderScanner {
public:
    HeaderScanner(std::string_view text, const std::string& label) : text_(text), label_(label) {}

    void skipSpace() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool consume(char c) {
        skipSpace();
        if (pos_ < text_.size() && text_[pos_] == c) { ++pos_; return true; }
        return false;
    }
    void expect(char c) {
        if (!consume(c)) bad(label_, std::string("malformed header, expected '") + c + "' at offset " + std::to_string(pos_));
    }
    std::string quoted() {
        skipSpace();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) bad(label_, "malformed header, expected a string");
        char quote = text_[pos_++];
        size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) bad(label_, "malformed header, unterminated string");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    std::string word() {
        skipSpace();
        size_t start = pos_;
        while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }
    Shape tuple() {
        expect('(');
        Shape shape;
        while (!consume(')')) {
            std::string digits = word();
            if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
                bad(label_, "malformed shape in header");
            shape.push_back(std::stoll(digits));
            if (!consume(',')) { expect(')'); break; }
        }
        return shape;
    }

private:
    std::string_view text_;
    const std::string& label_;
    size_t pos_ = 0;
};

struct Header {
    DType dtype = DType::Undefined;
    Shape shape;
};

Header parseHeader(std::string_view text, const std::string& label) {
    HeaderScanner scan(text, label);
    Header header;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    scan.expect('{');
    while (!scan.consume('}')) {
        std::string key = scan.quoted();
        scan.expect(':');
        if (key == "descr") {
            std::string descr = scan.quoted();
            if (descr.size() < 2) bad(label, "unsupported dtype '" + descr + "'");
            char order = descr[0];
            if (order == '>') bad(label, "big-endian data ('" + descr + "') is not supported");
            std::string code = (order == '<' || order == '|' || order == '=') ? descr.substr(1) : descr;
            for (const auto& entry : kDescrs)
                if (code == entry.code) header.dtype = entry.dtype;
            if (header.dtype == DType::Undefined) bad(label, "unsupported dtype '" + descr + "'");
            haveDescr = true;
        } else if (key == "fortran_order") {
            std::string value = scan.word();
            if (value == "True") bad(label, "Fortran-order arrays are not supported (save with C order)");
            if (value != "False") bad(label, "malformed fortran_order '" + value + "'");
            haveOrder = true;
        } else if (key == "shape") {
            header.shape = scan.tuple();
            haveShape = true;
        } else {
            bad(label, "unexpected header key '" + key + "'");
        }
        if (!scan.consume(',')) { scan.expect('}'); break; }
    }
    if (!haveDescr || !haveOrder || !haveShape) bad(label, "header lacks descr, fortran_order or shape");
    return header;
}

uint32_t readLittle(std::string_view bytes, size_t offset, size_t width) {
    uint32_t value = 0;
    for (size_t i = 0; i < width; ++i) value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
    return value;
}

std::string descrOf(DType dtype) {
    for (const auto& entry : kDescrs)
        if (entry.dtype == dtype) {
            std::string descr(1, dtypeSize(dtype) == 1 ? '|' : '<');  // byte order is moot for single bytes
            return descr.append(entry.code);
        }
    failUnsupported("npy: element type " + std::string(dtypeName(dtype)) + " has no .npy equivalent here");
}

}  // namespace

Tensor parseNpy(std::string_view bytes, const std::string& label) {
    if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) bad(label, "not a .npy file (bad magic)");
    auto major = static_cast<unsigned char>(bytes[6]);
    if (major < 1 || major > 3) bad(label, "unsupported format version " + std::to_string(major));
    size_t lengthWidth = major == 1 ? 2 : 4;
    size_t headerStart = 8 + lengthWidth;
    if (bytes.size() < headerStart) bad(label, "truncated header");
    size_t headerLength = readLittle(bytes, 8, lengthWidth);
    if (bytes.size() < headerStart + headerLength) bad(label, "truncated header");
    Header header = parseHeader(bytes.substr(headerStart, headerLength), label);

    // The declared size is checked against the data present before anything is allocated.
    uint64_t expected = 0;
    try {
        expected = tensorByteSize(header.dtype, header.shape);
    } catch (const Error& e) {
        bad(label, std::string("impossible shape: ") + e.what());
    }
    size_t dataStart = headerStart + headerLength;
    if (bytes.size() - dataStart != expected)
        bad(label, "data size " + std::to_string(bytes.size() - dataStart) + " bytes does not match shape " +
                       shapeToString(header.shape) + " (" + std::to_string(expected) + " bytes)");
    Tensor tensor = Tensor::uninitialized(header.dtype, header.shape);  // every byte is written below
    const char* source = bytes.data() + dataStart;
    if (header.dtype == DType::Bool) {  // normalise: any non-zero byte is true, as NumPy reads it
        bool* out = tensor.data<bool>();
        for (size_t i = 0; i < expected; ++i) out[i] = source[i] != 0;
    } else if (expected) {
        std::memcpy(tensor.raw(), source, expected);
    }
    return tensor;
}

Tensor readNpy(const std::string& path) { return parseNpy(readFile(path), path); }

std::string serializeNpy(const Tensor& tensor) {
    std::string dict = "{'descr': '" + descrOf(tensor.dtype()) + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < tensor.rank(); ++i) dict += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
    dict += tensor.rank() == 1 ? ",)" : ")";  // Python's one-element tuple needs the comma
    dict += ", }";
    // Pad with spaces so the data starts 64-byte aligned, ending the header with '\n' as NumPy does.
    size_t prefix = 10;
    size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    bool version2 = total - prefix > 0xffff;
    if (version2) { prefix = 12; total = (prefix + dict.size() + 1 + 63) / 64 * 64; }
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';

    std::string out(kMagic);
    out += static_cast<char>(version2 ? 2 : 1);
    out += '\0';
    size_t length = dict.size();
    for (size_t i = 0; i < (version2 ? 4u : 2u); ++i) out += static_cast<char>((length >> (8 * i)) & 0xff);
    out += dict;
    out.append(static_cast<const char*>(tensor.raw()), tensor.byteSize());
    return out;
}

void writeNpy(const std::string& path, const Tensor& tensor) { writeFileAtomically(path, serializeNpy(tensor)); }

}  // namespace npuwb
