#include "model/import/ImportText.h"

#include "model/util/Utf8.h"

namespace sl::import {
namespace {

__extension__ typedef __int128 Int128;

}  // namespace


std::optional<int64_t> decimalToNs(std::string_view t, int64_t unit) {
    // Fast path: up to 15 integer digits and up to 3 fraction digits, no exponent, unit 1000
    // or 1 (the shape of every Kineto timestamp); 15 digits times 1000 cannot overflow.
    if (!t.empty() && t.size() <= 19 && t[0] >= '0' && t[0] <= '9') {
        int64_t whole = 0;
        size_t i = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i < 15)
            whole = whole * 10 + (t[i++] - '0');
        if (i == t.size()) return whole * unit;
        if (t[i] == '.' && unit == 1000 && t.size() - i - 1 <= 3 && t.size() - i - 1 >= 1) {
            int64_t frac = 0;
            size_t k = i + 1, digits = 0;
            for (; k < t.size() && t[k] >= '0' && t[k] <= '9'; ++k, ++digits)
                frac = frac * 10 + (t[k] - '0');
            if (k == t.size()) {
                for (; digits < 3; ++digits) frac *= 10;
                return whole * 1000 + frac;
            }
        }
    }
    size_t i = 0;
    bool negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
    // Step 1: the significant digits as one integer and the power of ten they are scaled by.
    Int128 mantissa = 0;
    int scale = 0;  // value = mantissa * 10^scale
    int digits = 0;
    bool any = false, dot = false;
    for (; i < t.size(); ++i) {
        const char c = t[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (digits < 30) {
                mantissa = mantissa * 10 + (c - '0');
                if (mantissa != 0) ++digits;
                if (dot) --scale;
            } else if (!dot) {
                ++scale;  // digits beyond what we keep: scale up instead
            }
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!any) return std::nullopt;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        bool expNeg = false;
        if (i < t.size() && (t[i] == '-' || t[i] == '+')) expNeg = t[i++] == '-';
        int e = 0;
        bool expAny = false;
        for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
            expAny = true;
            if (e < 10000) e = e * 10 + (t[i] - '0');
        }
        if (!expAny) return std::nullopt;
        scale += expNeg ? -e : e;
    }
    if (i != t.size()) return std::nullopt;
    // Step 2: multiply by the unit, then bring the scale to 0 with rounding.
    mantissa *= unit;
    const Int128 limit = static_cast<Int128>(INT64_MAX);
    while (scale > 0) {
        if (mantissa > limit) return std::nullopt;
        mantissa *= 10;
        --scale;
    }
    if (scale < 0) {
        if (scale < -40) return 0;
        Int128 div = 1;
        for (int k = 0; k < -scale; ++k) div *= 10;
        const Int128 q = mantissa / div, r = mantissa % div;
        mantissa = q + (r * 2 >= div ? 1 : 0);
    }
    if (mantissa > limit) return std::nullopt;
    const auto v = static_cast<int64_t>(mantissa);
    return negative ? -v : v;
}

std::optional<int64_t> trailingInteger(std::string_view s) {
    size_t e = s.size();
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    size_t b = e;
    while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9') --b;
    if (b == e || e - b > 18) return std::nullopt;
    int64_t v = 0;
    for (size_t k = b; k < e; ++k) v = v * 10 + (s[k] - '0');
    if (b > 0 && s[b - 1] == '-' && b == 1) v = -v;
    return v;
}

}  // namespace sl::import
