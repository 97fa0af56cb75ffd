#include "paramdict.h"

#include "datareader.h"
#include "log.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace kite {

// longest array accepted from a file; real models use a handful of entries
static const int kMaxArrayLength = 1 << 20;

ParamDict::ParamDict()
{
    clear();
}

void ParamDict::clear()
{
    for (int i = 0; i < KITE_MAX_PARAM_COUNT; i++)
    {
        params[i].type = TYPE_NONE;
        params[i].i = 0;
        params[i].v.release();
        params[i].s.clear();
    }
    shape_hint.clear();
}

int ParamDict::type(int id) const
{
    if (id < 0 || id >= KITE_MAX_PARAM_COUNT)
        return TYPE_NONE;
    return params[id].type;
}

int ParamDict::get(int id, int def) const
{
    switch (type(id))
    {
    case TYPE_RAW:
    case TYPE_INT: return params[id].i;
    case TYPE_FLOAT:
    {
        // saturate: (int) of a value outside int's range is undefined
        const float f = params[id].f;
        if (!(f == f))
            return 0;
        if (f >= 2147483520.f)
            return INT32_MAX;
        if (f <= -2147483648.f)
            return INT32_MIN;
        return (int)f;
    }
    }
    return def;
}

float ParamDict::get(int id, float def) const
{
    switch (type(id))
    {
    case TYPE_RAW:
    case TYPE_FLOAT: return params[id].f;
    case TYPE_INT: return (float)params[id].i;
    }
    return def;
}

Mat ParamDict::get(int id, const Mat& def) const
{
    return type(id) == TYPE_ARRAY ? params[id].v : def;
}

std::string ParamDict::get(int id, const std::string& def) const
{
    return type(id) == TYPE_STRING ? params[id].s : def;
}

void ParamDict::set(int id, int i)
{
    if (id < 0 || id >= KITE_MAX_PARAM_COUNT) return;
    params[id].type = TYPE_INT;
    params[id].i = i;
}

void ParamDict::set(int id, float f)
{
    if (id < 0 || id >= KITE_MAX_PARAM_COUNT) return;
    params[id].type = TYPE_FLOAT;
    params[id].f = f;
}

void ParamDict::set(int id, const Mat& v)
{
    if (id < 0 || id >= KITE_MAX_PARAM_COUNT) return;
    params[id].type = TYPE_ARRAY;
    params[id].v = v;
}

void ParamDict::set(int id, const std::string& s)
{
    if (id < 0 || id >= KITE_MAX_PARAM_COUNT) return;
    params[id].type = TYPE_STRING;
    params[id].s = s;
}

namespace {

bool is_float_text(const std::string& s)
{
    return s.find_first_of(".eE") != std::string::npos || s.find("nan") != std::string::npos || s.find("inf") != std::string::npos;
}

// parse one number; stores int or float bits; returns false if not a number
bool parse_number(const std::string& s, int& bits, bool& is_float)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    if (is_float_text(s))
    {
        float f = strtof(s.c_str(), &end);
        if (*end != 0)
            return false;
        memcpy(&bits, &f, 4);
        is_float = true;
        return true;
    }
    long v = strtol(s.c_str(), &end, 10);
    if (*end != 0 || errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
        return false;
    bits = (int)v;
    is_float = false;
    return true;
}

std::vector<std::string> split_commas(const std::string& s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (true)
    {
        size_t p = s.find(',', start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos)
            break;
        start = p + 1;
    }
    return out;
}

} // namespace

int ParamDict::load_param_text(const std::string* tokens, int count, const char* where)
{
    clear();
    for (int t = 0; t < count; t++)
    {
        const std::string& tok = tokens[t];
        size_t eq = tok.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            KITE_LOGE("%s: parameter '%s' is not key=value", where, tok.c_str());
            return -1;
        }
        std::string key = tok.substr(0, eq);
        std::string val = tok.substr(eq + 1);
        int keybits;
        bool keyfloat;
        if (!parse_number(key, keybits, keyfloat) || keyfloat)
        {
            KITE_LOGE("%s: parameter key '%s' is not an integer", where, key.c_str());
            return -1;
        }
        int id = keybits;
        bool is_array = false;
        if (id <= -23300)
        {
            id = -id - 23300;
            is_array = true;
        }
        if (id == 30 && is_array)
            continue; // output shape hint, read by Net separately
        if (id < 0 || id >= KITE_MAX_PARAM_COUNT)
        {
            KITE_LOGE("%s: parameter id %d out of range 0..%d", where, keybits, KITE_MAX_PARAM_COUNT - 1);
            return -1;
        }
        if (params[id].type != TYPE_NONE)
        {
            KITE_LOGE("%s: parameter id %d given twice", where, id);
            return -1;
        }
        if (!is_array && val.size() >= 2 && val.front() == '"' && val.back() == '"')
        {
            // quoted string value, e.g. a Reshape shape expression 6="1w,1h,128"
            set(id, val.substr(1, val.size() - 2));
            continue;
        }
        std::vector<std::string> items = split_commas(val);
        if (is_array)
        {
            // n,v1,...,vn
            int n = 0;
            bool nf = false;
            if (!parse_number(items[0], n, nf) || nf || n < 0 || n > kMaxArrayLength || (size_t)n != items.size() - 1)
            {
                KITE_LOGE("%s: array parameter %d has a bad count '%s' for %d values", where, id, items[0].c_str(), (int)items.size() - 1);
                return -1;
            }
            Mat m(n > 0 ? n : 1);
            if (m.empty())
                return -100;
            for (int i = 0; i < n; i++)
            {
                bool f;
                if (!parse_number(items[i + 1], ((int*)m.data)[i], f))
                {
                    KITE_LOGE("%s: array parameter %d value '%s' is not a number", where, id, items[i + 1].c_str());
                    return -1;
                }
            }
            if (n == 0)
                m.w = 0, m.cstep = 0;
            set(id, m);
            continue;
        }
        if (items.size() > 1)
        {
            // newer form: k=v1,v2,...
            int n = (int)items.size();
            if (n > kMaxArrayLength)
            {
                KITE_LOGE("%s: array parameter %d too long", where, id);
                return -1;
            }
            Mat m(n);
            if (m.empty())
                return -100;
            for (int i = 0; i < n; i++)
            {
                bool f;
                if (!parse_number(items[i], ((int*)m.data)[i], f))
                {
                    KITE_LOGE("%s: array parameter %d value '%s' is not a number", where, id, items[i].c_str());
                    return -1;
                }
            }
            set(id, m);
            continue;
        }
        int bits;
        bool isf;
        if (parse_number(val, bits, isf))
        {
            params[id].type = isf ? TYPE_FLOAT : TYPE_INT;
            params[id].i = bits;
        }
        else if (!val.empty() && (isalpha((unsigned char)val[0]) || val[0] == '_'))
        {
            set(id, val); // an unquoted string value
        }
        else
        {
            KITE_LOGE("%s: parameter %d value '%s' is not a number", where, id, val.c_str());
            return -1;
        }
    }
    return 0;
}

int ParamDict::load_param_bin(const DataReader& dr, const char* where)
{
    clear();
    for (int guard = 0; guard < 4096; guard++)
    {
        int id = 0;
        if (dr.read(&id, 4) != 4)
        {
            KITE_LOGE("%s: param.bin truncated in the parameter list", where);
            return -1;
        }
        if (id == -233)
            return 0;
        if (id < -23400 - KITE_MAX_PARAM_COUNT || id >= KITE_MAX_PARAM_COUNT)
        {
            KITE_LOGE("%s: parameter key %d out of range", where, id);
            return -1;
        }
        bool is_array = id <= -23300 && id > -23400;
        bool is_string = id <= -23400;
        if (is_array)
            id = -id - 23300;
        else if (is_string)
            id = -id - 23400;
        if (id < 0 || id >= KITE_MAX_PARAM_COUNT)
        {
            KITE_LOGE("%s: parameter id %d out of range 0..%d", where, id, KITE_MAX_PARAM_COUNT - 1);
            return -1;
        }
        if (is_array || is_string)
        {
            int n = 0;
            if (dr.read(&n, 4) != 4)
            {
                KITE_LOGE("%s: param.bin truncated in array %d", where, id);
                return -1;
            }
            if (n < 0 || n > kMaxArrayLength)
            {
                KITE_LOGE("%s: array parameter %d has bad length %d", where, id, n);
                return -1;
            }
            if (is_string)
            {
                size_t padded = align_size((size_t)n, 4);
                std::string s(padded, '\0');
                if (padded && dr.read(&s[0], padded) != padded)
                {
                    KITE_LOGE("%s: param.bin truncated in string %d", where, id);
                    return -1;
                }
                s.resize(n);
                set(id, s);
                continue;
            }
            Mat m(n > 0 ? n : 1);
            if (m.empty())
                return -100;
            if (n > 0 && dr.read(m.data, (size_t)n * 4) != (size_t)n * 4)
            {
                KITE_LOGE("%s: param.bin truncated in array %d", where, id);
                return -1;
            }
            if (n == 0)
                m.w = 0, m.cstep = 0;
            if (id != 30)
                set(id, m);
            else
                shape_hint.assign((const int*)m.data, (const int*)m.data + n);
            continue;
        }
        int bits = 0;
        if (dr.read(&bits, 4) != 4)
        {
            KITE_LOGE("%s: param.bin truncated in parameter %d", where, id);
            return -1;
        }
        params[id].type = TYPE_RAW;
        params[id].i = bits;
    }
    KITE_LOGE("%s: param.bin parameter list has no -233 terminator", where);
    return -1;
}

} // namespace kite
