#include "expression.h"

#include "log.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kite {

namespace {

struct Value
{
    bool is_float;
    int i;
    float f;
    static Value of_int(int v) { return Value{false, v, (float)v}; }
    static Value of_float(float v) { return Value{true, (int)v, v}; }
    float as_float() const { return is_float ? f : (float)i; }
    int as_int() const { return is_float ? (int)f : i; }
};

std::vector<std::string> tokenize(const std::string& expr)
{
    std::vector<std::string> tokens;
    std::string t;
    for (char ch : expr)
    {
        if (ch == '(' || ch == ')' || ch == ',')
        {
            if (!t.empty())
                tokens.push_back(t);
            t.clear();
        }
        else if (ch != ' ')
        {
            t += ch;
        }
    }
    if (!t.empty())
        tokens.push_back(t);
    return tokens;
}

bool is_blob_ref(const std::string& t)
{
    return t.size() == 2 && t[0] >= '0' && t[0] <= '9' && strchr("whdcn", t[1]) != nullptr;
}

int arity(const std::string& t)
{
    static const char* binary[] = {"+", "-", "*", "//", "max", "min", "/", "atan2", "fmod", "pow", "remainder", "logaddexp", "and", "or", "xor", "lshift", "rshift"};
    static const char* unary[] = {"abs", "neg", "sign", "square", "trunc", "ceil", "floor", "round", "acos", "acosh", "asin", "asinh", "atan", "atanh",
                                  "cos", "cosh", "erf", "exp", "log", "log10", "reciprocal", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh"};
    for (const char* b : binary)
        if (t == b)
            return 2;
    for (const char* u : unary)
        if (t == u)
            return 1;
    return 0;
}

bool parse_literal(const std::string& t, Value& v)
{
    char* end = nullptr;
    long li = strtol(t.c_str(), &end, 10);
    if (*end == 0 && !t.empty())
    {
        v = Value::of_int((int)li);
        return true;
    }
    float f = strtof(t.c_str(), &end);
    if (*end == 0 && !t.empty())
    {
        v = Value::of_float(f);
        return true;
    }
    return false;
}

Value apply_unary(const std::string& op, Value a)
{
    if (!a.is_float)
    {
        int x = a.i;
        if (op == "abs") return Value::of_int(x < 0 ? -x : x);
        if (op == "neg") return Value::of_int(-x);
        if (op == "sign") return Value::of_int(x > 0 ? 1 : x < 0 ? -1 : 0);
        if (op == "square") return Value::of_int(x * x);
        if (op == "trunc" || op == "ceil" || op == "floor" || op == "round") return a;
    }
    float x = a.as_float();
    if (op == "abs") return Value::of_float(fabsf(x));
    if (op == "neg") return Value::of_float(-x);
    if (op == "sign") return Value::of_float(x > 0 ? 1.f : x < 0 ? -1.f : 0.f);
    if (op == "square") return Value::of_float(x * x);
    if (op == "trunc") return Value::of_int((int)x);
    if (op == "ceil") return Value::of_int((int)ceilf(x));
    if (op == "floor") return Value::of_int((int)floorf(x));
    if (op == "round") return Value::of_int((int)roundf(x));
    if (op == "acos") return Value::of_float(acosf(x));
    if (op == "acosh") return Value::of_float(acoshf(x));
    if (op == "asin") return Value::of_float(asinf(x));
    if (op == "asinh") return Value::of_float(asinhf(x));
    if (op == "atan") return Value::of_float(atanf(x));
    if (op == "atanh") return Value::of_float(atanhf(x));
    if (op == "cos") return Value::of_float(cosf(x));
    if (op == "cosh") return Value::of_float(coshf(x));
    if (op == "erf") return Value::of_float(erff(x));
    if (op == "exp") return Value::of_float(expf(x));
    if (op == "log") return Value::of_float(logf(x));
    if (op == "log10") return Value::of_float(log10f(x));
    if (op == "reciprocal") return Value::of_float(1.f / x);
    if (op == "rsqrt") return Value::of_float(1.f / sqrtf(x));
    if (op == "sin") return Value::of_float(sinf(x));
    if (op == "sinh") return Value::of_float(sinhf(x));
    if (op == "sqrt") return Value::of_float(sqrtf(x));
    if (op == "tan") return Value::of_float(tanf(x));
    return Value::of_float(tanhf(x));
}

// returns false on division by zero in integer arithmetic
bool apply_binary(const std::string& op, Value a, Value b, Value& r)
{
    bool ints = !a.is_float && !b.is_float;
    if (op == "and" || op == "or" || op == "xor" || op == "lshift" || op == "rshift")
    {
        int x = a.as_int(), y = b.as_int();
        if ((op == "lshift" || op == "rshift") && (y < 0 || y > 31))
            return false;
        r = Value::of_int(op == "and" ? (x & y) : op == "or" ? (x | y) : op == "xor" ? (x ^ y) : op == "lshift" ? (int)((unsigned)x << y) : (x >> y));
        return true;
    }
    if (ints && (op == "+" || op == "-" || op == "*" || op == "//" || op == "max" || op == "min"))
    {
        long long x = a.i, y = b.i, v = 0;
        if (op == "+") v = x + y;
        else if (op == "-") v = x - y;
        else if (op == "*") v = x * y;
        else if (op == "//")
        {
            if (y == 0)
                return false;
            v = x / y;
        }
        else if (op == "max") v = x > y ? x : y;
        else v = x < y ? x : y;
        r = Value::of_int((int)v);
        return true;
    }
    float x = a.as_float(), y = b.as_float(), v = 0.f;
    if (op == "+") v = x + y;
    else if (op == "-") v = x - y;
    else if (op == "*") v = x * y;
    else if (op == "//") v = floorf(x / y);
    else if (op == "max") v = x > y ? x : y;
    else if (op == "min") v = x < y ? x : y;
    else if (op == "/") v = x / y;
    else if (op == "atan2") v = atan2f(x, y);
    else if (op == "fmod") v = fmodf(x, y);
    else if (op == "pow") v = powf(x, y);
    else if (op == "logaddexp")
    {
        float hi = x > y ? x : y, lo = x > y ? y : x;
        v = std::isnan(x) || std::isnan(y) ? NAN : (std::isinf(hi) && hi == lo) ? hi : hi + log1pf(expf(lo - hi));
    }
    else // remainder (python semantics: sign of the divisor)
    {
        v = fmodf(x, y);
        if (v != 0.f && ((v < 0) != (y < 0)))
            v += y;
    }
    r = Value::of_float(v);
    return true;
}

} // namespace

int count_expression_blobs(const std::string& expr)
{
    int count = 0;
    for (const std::string& t : tokenize(expr))
        if (is_blob_ref(t))
            count = std::max(count, t[0] - '0' + 1);
    return count;
}

int eval_list_expression(const std::string& expr, const std::vector<Mat>& blobs, std::vector<int>& out)
{
    std::vector<std::string> tokens = tokenize(expr);
    if (tokens.empty())
    {
        KITE_LOGE("shape expression '%s' is empty", expr.c_str());
        return -1;
    }
    // prefix notation: scan right to left with a stack
    std::vector<Value> stack;
    for (int i = (int)tokens.size() - 1; i >= 0; i--)
    {
        const std::string& t = tokens[i];
        if (is_blob_ref(t))
        {
            size_t bi = (size_t)(t[0] - '0');
            if (bi >= blobs.size())
            {
                KITE_LOGE("shape expression '%s' refers to input %d but the layer has %d", expr.c_str(), (int)bi, (int)blobs.size());
                return -1;
            }
            const Mat& m = blobs[bi];
            int v = t[1] == 'w' ? m.w : t[1] == 'h' ? m.h : t[1] == 'd' ? m.d : t[1] == 'c' ? m.c : 1;
            // sizes are in unpacked elements along the packing axis
            if ((t[1] == 'w' && m.dims == 1) || (t[1] == 'h' && m.dims == 2) || (t[1] == 'c' && m.dims >= 3))
                v *= m.elempack;
            stack.push_back(Value::of_int(v));
            continue;
        }
        int n = arity(t);
        if (n == 0)
        {
            Value v;
            if (!parse_literal(t, v))
            {
                KITE_LOGE("shape expression '%s': unknown token '%s'", expr.c_str(), t.c_str());
                return -1;
            }
            stack.push_back(v);
            continue;
        }
        if ((int)stack.size() < n)
        {
            KITE_LOGE("shape expression '%s': operator '%s' lacks operands", expr.c_str(), t.c_str());
            return -1;
        }
        Value a = stack.back();
        stack.pop_back();
        if (n == 1)
        {
            stack.push_back(apply_unary(t, a));
            continue;
        }
        Value b = stack.back();
        stack.pop_back();
        Value r;
        if (!apply_binary(t, a, b, r))
        {
            KITE_LOGE("shape expression '%s': invalid arithmetic in '%s'", expr.c_str(), t.c_str());
            return -1;
        }
        stack.push_back(r);
    }
    for (int i = (int)stack.size() - 1; i >= 0; i--)
        out.push_back(stack[i].as_int());
    return 0;
}

} // namespace kite
