// Decimal text to double, correctly rounded (to nearest, ties to even), without libc's strtod:
// musl's parses through 128-bit long double arithmetic done in software, 14 KB of the .wasm.
// The wasm builds route strtod itself here (the linker's --wrap), so nlohmann_json's numbers
// take this path too.
#pragma once

namespace webnx {

// Parses an optional sign, then digits with an optional '.' and an optional exponent
// ("-12.5e-3"), or "inf", "infinity" or "nan" in any case. Returns the first character after
// the number, or `text` itself when no number starts there (*out is then 0). A value too large
// for a double is an infinity, one too small a zero. Leading spaces are not skipped, and
// hexadecimal floats ("0x1p3") are not read: "0" is, and the 'x' is where parsing stops.
const char* ParseDecimal(const char* text, double* out);

}  // namespace webnx
