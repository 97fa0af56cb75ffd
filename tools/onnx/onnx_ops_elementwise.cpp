// ONNX element-wise ops with two or more operands (Add, Mul, ..., Sum) and
// Expand.
#include "onnx_ops.h"

#include "binaryop.h"

#include <algorithm>

namespace kite {
namespace convert {
namespace onnx {

Operand operand(Converter& cv, int i)
{
    Operand o;
    o.shape = cv.in_shape(i);
    o.name = cv.in_name(i);
    if (cv.in_const(i))
        o.c = &cv.cin(i);
    else
        o.blob = cv.blob(i);
    return o;
}

// the operand laid out on the given axes of a rank-r frame (its shape
// right-aligned, missing leading axes are 1)
std::string operand_on(Converter& cv, const Operand& x, size_t r, const std::vector<int>& axes)
{
    Shape padded(r - x.shape.size(), 1);
    padded.insert(padded.end(), x.shape.begin(), x.shape.end());
    Shape k;
    for (int a : axes)
        k.push_back(padded[a]);
    if (k.empty())
        k.push_back(1);
    if (x.c)
        return cv.const_blob(x.name, *x.c, k);
    return cv.reshape(x.blob, Converter::kshape(x.shape), k);
}

// op(a, b) into blob `top`; returns the ONNX shape of the result, whose blob
// has shape kshape(result)
static Shape binary_into(Converter& cv, int op, const Operand& a, const Operand& b, const std::string& top)
{
    Shape o = broadcast_shape(cv, a.shape, b.shape);
    for (int side = 0; side < 2; side++)
    {
        const Operand& x = side ? a : b; // the scalar one
        const Operand& y = side ? b : a;
        if (!(x.c && x.c->numel() == 1 && o == y.shape && !y.c))
            continue;
        // the scalar on the left: the reversed op
        static const int rev[] = {BinaryOp::Operation_ADD, BinaryOp::Operation_RSUB, BinaryOp::Operation_MUL,
                                  BinaryOp::Operation_RDIV, BinaryOp::Operation_MAX, BinaryOp::Operation_MIN,
                                  BinaryOp::Operation_RPOW};
        cv.emit(BinaryOpSpec::scalar(side ? rev[op] : op, (float)x.c->v[0]), {y.blob}, {top});
        return o;
    }
    std::vector<int> axes = Converter::kept_axes(o);
    std::string x = operand_on(cv, a, o.size(), axes);
    std::string y = operand_on(cv, b, o.size(), axes);
    cv.emit(BinaryOpSpec::op(op), {x, y}, {top});
    return o;
}

// Add/Sub/Mul/Div/Pow/Max/Min and the variadic Sum/Max/Min as a chain
void emit_binary(Converter& cv, int op)
{
    if (cv.n_in() < 1)
        cv.fail("needs an input");
    Operand acc = operand(cv, 0);
    if (cv.n_in() == 1 && !acc.c)
    {
        cv.set_out(0, acc.shape, acc.blob, Converter::kshape(acc.shape));
        return;
    }
    for (int i = 1; i < cv.n_in(); i++)
    {
        std::string t = i + 1 == cv.n_in() ? cv.top_name(0) : cv.uniq(cv.out_name(0));
        Shape o = binary_into(cv, op, acc, operand(cv, i), t);
        acc = Operand();
        acc.shape = o;
        acc.blob = t;
    }
    cv.set_out(0, acc.shape, acc.blob, Converter::kshape(acc.shape));
}

// Expand of a computed tensor: a product with ones of the target shape
// Expand(x, shape) read only by element-wise broadcasting ops whose other
// operand already has that shape (F.normalize's x / norm.expand_as(x) in
// Swin V2): those ops broadcast x themselves; the Expand is left out (its
// constant of ones would fix the model to the target's size)
static bool expand_left_to_readers(Converter& cv, const Shape& target)
{
    if (!cv.graph_ || cv.in_const(0) || cv.in_wide(0) || cv.n_out() != 1)
        return false;
    static const std::set<std::string> kBroadcasting = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
    const std::string& out = cv.out_name(0);
    for (const ValueInfoProto& vi : cv.graph_->output())
        if (vi.name() == out)
            return false; // a graph output keeps the expanded shape
    int readers = 0;
    for (const NodeProto& n : cv.graph_->node())
        for (int i = 0; i < n.input_size(); i++)
        {
            if (n.input(i) != out)
                continue;
            if (!kBroadcasting.count(n.op_type()) || n.input_size() != 2)
                return false;
            const std::string& other = n.input(1 - i);
            auto it = cv.shapes_.find(other);
            if (other == out || it == cv.shapes_.end() || it->second != target)
                return false;
            readers++;
        }
    if (!readers)
        return false;
    // numpy broadcasting: x against the target gives the target
    const Shape& x = cv.in_shape(0);
    if (x.size() > target.size())
        return false;
    for (size_t k = 0; k < x.size(); k++)
    {
        const int64_t xd = x[x.size() - 1 - k], td = target[target.size() - 1 - k];
        if (xd != td && xd != 1)
            return false;
    }
    cv.set_out(0, x, cv.blob(0), cv.blob_kshape(0));
    return true;
}

void emit_expand(Converter& cv)
{
    {
        const std::vector<int64_t> want = cv.cin(1).ints();
        Shape x = cv.in_shape(0), target(std::max(want.size(), x.size()), 1);
        bool ok = true;
        for (size_t k = 0; k < target.size() && ok; k++) // the broadcast of x and the requested shape
        {
            const int64_t a = k < x.size() ? x[x.size() - 1 - k] : 1, b = k < want.size() ? want[want.size() - 1 - k] : 1;
            ok = a == b || a == 1 || b == 1;
            target[target.size() - 1 - k] = std::max(a, b);
        }
        if (ok && expand_left_to_readers(cv, target))
            return;
    }
    Const ones;
    for (int64_t d : cv.cin(1).ints())
    {
        if (d < 1 || d > (1 << 24))
            cv.fail("invalid target dimension " + std::to_string(d));
        ones.shape.push_back(d);
    }
    if (shape_numel(ones.shape) > ((size_t)1 << 24))
        cv.fail("target shape too large");
    ones.v.assign(shape_numel(ones.shape), 1.0);
    Operand b;
    b.shape = ones.shape;
    b.c = &ones;
    b.name = cv.in_name(1);
    std::string t = cv.top_name(0);
    Shape o = binary_into(cv, BinaryOp::Operation_MUL, operand(cv, 0), b, t);
    cv.set_out(0, o, t, Converter::kshape(o));
}

} // namespace onnx
} // namespace convert
} // namespace kite
