#include "report.h"

#include <cstdio>

namespace kite {
namespace convert {

void UnsupportedOps::add(const std::string& op_type, const std::string& node_name, const std::string& why)
{
    auto it = entries.find(op_type);
    if (it == entries.end())
    {
        Entry e;
        e.count = 1;
        e.first = node_name;
        e.why = why;
        entries[op_type] = e;
        order.push_back(op_type);
        return;
    }
    it->second.count++;
}

std::string UnsupportedOps::text() const
{
    int nodes = 0;
    for (const auto& kv : entries)
        nodes += kv.second.count;
    std::string s = "unsupported ops (" + std::to_string(order.size()) + (order.size() == 1 ? " type, " : " types, ")
                    + std::to_string(nodes) + (nodes == 1 ? " node):" : " nodes):");
    for (const std::string& t : order)
    {
        const Entry& e = entries.at(t);
        s += "\n  " + t + " x" + std::to_string(e.count) + " (first node '" + e.first + "'";
        if (!e.why.empty())
            s += ": " + e.why;
        s += ")";
    }
    return s;
}

int UnsupportedOps::print(const char* tool) const
{
    fprintf(stderr, "%s: error: %s\n", tool, text().c_str());
    return 1;
}

} // namespace convert
} // namespace kite
