#ifndef KITE_PARAMDICT_H
#define KITE_PARAMDICT_H

#include "mat.h"

#include <string>
#include <vector>

namespace kite {

#define KITE_MAX_PARAM_COUNT 32

class DataReader;

// Layer parameters by id (0..31): int, float, array (a Mat of int or float
// bits, as the file wrote them) or string.
class ParamDict
{
public:
    ParamDict();

    enum Type
    {
        TYPE_NONE = 0,
        TYPE_RAW = 1,   // 32 bits from a binary param: read as int or float
        TYPE_INT = 2,
        TYPE_FLOAT = 3,
        TYPE_ARRAY = 4,
        TYPE_STRING = 5,
    };

    int type(int id) const;
    bool has(int id) const { return type(id) != TYPE_NONE; }

    int get(int id, int def) const;
    float get(int id, float def) const;
    Mat get(int id, const Mat& def) const;
    std::string get(int id, const std::string& def) const;
    std::string get(int id, const char* def) const { return get(id, std::string(def)); }

    void set(int id, int i);
    void set(int id, float f);
    void set(int id, const Mat& v);
    void set(int id, const std::string& s);

    void clear();

    // Parse the k=v pairs of one text layer line (tokens already split on
    // whitespace). Returns 0, or -1 with a message naming the bad token.
    int load_param_text(const std::string* tokens, int count, const char* where);
    // Parse the binary id/value list up to the -233 terminator.
    int load_param_bin(const DataReader& dr, const char* where);

    // The values of the -23330 shape hint (dims,w,h,(d,)c per blob) as
    // load_param_bin read them; empty when the layer has none. The
    // text loader leaves it to the Net, which reads the token itself.
    std::vector<int> shape_hint;

private:
    struct Param
    {
        int type;
        union
        {
            int i;
            float f;
        };
        Mat v;
        std::string s;
    };
    Param params[KITE_MAX_PARAM_COUNT];
};

} // namespace kite

#endif // KITE_PARAMDICT_H
