#ifndef KITE_CONVERT_REPORT_H
#define KITE_CONVERT_REPORT_H

// Collects the ops a converter cannot handle so that all of them are reported
// at once: op type, how many nodes, the first node's name.

#include <map>
#include <string>
#include <vector>

namespace kite {
namespace convert {

class UnsupportedOps
{
public:
    // remember one node of an unsupported type; `why` is optional detail
    // (e.g. "attribute mode=reflect") kept from the first node of that type
    void add(const std::string& op_type, const std::string& node_name, const std::string& why = std::string());
    bool empty() const { return order.empty(); }
    size_t type_count() const { return order.size(); }
    // "unsupported ops (2 types, 5 nodes):\n  Foo x3 (first node 'a')\n  Bar x2 (first node 'b': why)"
    std::string text() const;
    // print text() to stderr prefixed by "<tool>: error: "; returns 1 (the exit status)
    int print(const char* tool) const;

private:
    struct Entry
    {
        int count = 0;
        std::string first;
        std::string why;
    };
    std::map<std::string, Entry> entries;
    std::vector<std::string> order;
};

} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_REPORT_H
