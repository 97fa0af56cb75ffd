// ModelBin / DataReader tests: every buffer tag, raw buffers, truncation,
// zero-copy references from memory and mmap, the empty reader.
#include "testutil.h"

#include "datareader.h"
#include "log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

const unsigned int TAG_FP32 = 0x00000000;
const unsigned int TAG_FP16 = 0x01306B47;
const unsigned int TAG_INT8 = 0x000D4B38;
const unsigned int TAG_FP32_ALT = 0x0002C056;

// builds a .bin in memory; every buffer is padded to 4 bytes
struct BinBuilder
{
    std::vector<unsigned char> bytes;
    void raw(const void* p, size_t n)
    {
        const unsigned char* b = (const unsigned char*)p;
        bytes.insert(bytes.end(), b, b + n);
    }
    void pad()
    {
        while (bytes.size() % 4)
            bytes.push_back(0);
    }
    void u32(unsigned int v) { raw(&v, 4); }
    void fp32(const std::vector<float>& v, unsigned int tag = TAG_FP32)
    {
        u32(tag);
        raw(v.data(), v.size() * 4);
    }
    void type1(const std::vector<float>& v) { raw(v.data(), v.size() * 4); }
    void fp16(const std::vector<float>& v)
    {
        u32(TAG_FP16);
        for (float f : v)
        {
            unsigned short h = float32_to_float16(f);
            raw(&h, 2);
        }
        pad();
    }
    void int8(const std::vector<signed char>& v)
    {
        u32(TAG_INT8);
        raw(v.data(), v.size());
        pad();
    }
    // legacy: 256-float table (its first entry doubles as the tag), then indices
    void table(const std::vector<float>& tab, const std::vector<unsigned char>& idx)
    {
        raw(tab.data(), 256 * 4);
        raw(idx.data(), idx.size());
        pad();
    }
};

std::vector<float> random_floats(int n)
{
    std::vector<float> v(n);
    for (float& f : v)
        f = rand_float(-10.f, 10.f);
    return v;
}

std::string check_floats(const Mat& m, const std::vector<float>& want)
{
    if (m.empty())
        return "empty Mat";
    if (m.elemsize != 4u || (size_t)m.w * m.h * m.d * m.c != want.size())
        return "shape " + shape_string(m);
    const float* p = (const float*)m.data;
    for (size_t i = 0; i < want.size(); i++)
        if (p[i] != want[i])
            return "value " + std::to_string(i) + ": " + std::to_string(p[i]) + " want " + std::to_string(want[i]);
    return "";
}

bool inside(const void* p, const std::vector<unsigned char>& buf)
{
    return (const unsigned char*)p >= buf.data() && (const unsigned char*)p < buf.data() + buf.size();
}

struct QuietLog
{
    QuietLog() { set_log_sink([](int, const char*, void*) {}, nullptr); }
    ~QuietLog() { set_log_sink(nullptr, nullptr); }
};

// a reader that neither references nor knows its size: exercises the copying paths
class StreamOnlyReader : public DataReader
{
public:
    StreamOnlyReader(const unsigned char* p, size_t n) : p(p), left(n) {}
    size_t read(void* buf, size_t size) const override
    {
        size_t n = size < left ? size : left;
        memcpy(buf, p, n);
        p += n;
        left -= n;
        return n;
    }

private:
    mutable const unsigned char* p;
    mutable size_t left;
};

} // namespace

TEST(ModelBin, every_tag_in_sequence)
{
    reseed(1);
    std::vector<float> a = random_floats(7), b = random_floats(5), c = random_floats(9), d = random_floats(3), e = random_floats(6);
    std::vector<signed char> q = {-127, -1, 0, 1, 5, 127, 33};
    std::vector<float> tab(256);
    for (int i = 0; i < 256; i++)
        tab[i] = i * 0.25f - 7.f; // tab[0] = -7: not one of the tags
    std::vector<unsigned char> idx = {0, 255, 3, 128, 7};

    BinBuilder bb;
    bb.fp32(a);
    bb.fp16(b); // 5 halves: 10 bytes + 2 padding
    bb.int8(q); // 7 bytes + 1 padding
    bb.fp32(c, TAG_FP32_ALT);
    bb.type1(d);
    bb.table(tab, idx); // 5 indices + 3 padding
    bb.fp32(e);

    DataReaderFromMemory dr(bb.bytes.data(), bb.bytes.size());
    ModelBinFromDataReader mb(dr);

    Mat ma = mb.load(7, 0);
    EXPECT_EQ(check_floats(ma, a), "");
    Mat mbh = mb.load(5, 0);
    std::vector<float> bh;
    for (float f : b)
        bh.push_back(float16_to_float32(float32_to_float16(f)));
    EXPECT_EQ(check_floats(mbh, bh), "");
    Mat mq = mb.load(7, 0);
    ASSERT_FALSE(mq.empty());
    EXPECT_EQ(mq.elemsize, 1u);
    EXPECT_EQ(mq.w, 7);
    for (int i = 0; i < 7; i++)
        EXPECT_EQ(((const signed char*)mq.data)[i], q[i]);
    Mat mc = mb.load(9, 0);
    EXPECT_EQ(check_floats(mc, c), "");
    Mat md = mb.load(3, 1);
    EXPECT_EQ(check_floats(md, d), "");
    Mat mt = mb.load(5, 0);
    std::vector<float> tv;
    for (unsigned char i : idx)
        tv.push_back(tab[i]);
    EXPECT_EQ(check_floats(mt, tv), "");
    Mat me = mb.load(6, 0);
    EXPECT_EQ(check_floats(me, e), "");
    EXPECT_EQ(dr.remaining(), 0u);
    EXPECT_EQ(dr.consumed(), bb.bytes.size());

    // the same bytes through a reader that can only copy
    StreamOnlyReader sr(bb.bytes.data(), bb.bytes.size());
    ModelBinFromDataReader mb2(sr);
    EXPECT_EQ(check_floats(mb2.load(7, 0), a), "");
    EXPECT_EQ(check_floats(mb2.load(5, 0), bh), "");
    EXPECT_EQ(mb2.load(7, 0).elemsize, 1u);
    EXPECT_EQ(check_floats(mb2.load(9, 0), c), "");
    EXPECT_EQ(check_floats(mb2.load(3, 1), d), "");
    EXPECT_EQ(check_floats(mb2.load(5, 0), tv), "");
    EXPECT_EQ(check_floats(mb2.load(6, 0), e), "");
}

TEST(ModelBin, zero_copy_from_memory)
{
    reseed(2);
    std::vector<float> a = random_floats(16), b = random_floats(4);
    BinBuilder bb;
    bb.fp32(a);
    bb.type1(b);
    DataReaderFromMemory dr(bb.bytes.data(), bb.bytes.size());
    ModelBinFromDataReader mb(dr);
    Mat ma = mb.load(16, 0);
    Mat mb1 = mb.load(4, 1);
    EXPECT_EQ(check_floats(ma, a), "");
    EXPECT_EQ(check_floats(mb1, b), "");
    // the weights are used in place: the data lies inside the source buffer and is not owned
    EXPECT_TRUE(inside(ma.data, bb.bytes));
    EXPECT_EQ((const unsigned char*)ma.data, bb.bytes.data() + 4);
    EXPECT_EQ(ma.refcount, nullptr);
    EXPECT_TRUE(inside(mb1.data, bb.bytes));
}

// KNOWN BUG (src/modelbin.cpp, ModelBinFromDataReader::load, the type 1 branch:
// "if (dr.reference(bytes, &ref) == bytes && ((uintptr_t)ref & 3) == 0)"):
// when reference() succeeds but the pointer is not 4-byte aligned, the bytes
// have already been consumed, and the fallback read_exact() then reads the
// bytes that follow (or fails at the end). The fallback should memcpy from
// ref. This test fails until that is fixed.
TEST(ModelBin, misaligned_memory_is_copied)
{
    reseed(2);
    std::vector<float> a = random_floats(16), b = random_floats(4);
    BinBuilder bb;
    bb.fp32(a);
    bb.type1(b);
    // a misaligned source is copied instead, with the same values
    std::vector<unsigned char> shifted(bb.bytes.size() + 1);
    memcpy(shifted.data() + 1, bb.bytes.data(), bb.bytes.size());
    DataReaderFromMemory dr2(shifted.data() + 1, bb.bytes.size());
    ModelBinFromDataReader mb2(dr2);
    Mat sa = mb2.load(16, 0);
    EXPECT_EQ(check_floats(sa, a), "");
    EXPECT_EQ(check_floats(mb2.load(4, 1), b), "");
}

TEST(ModelBin, shaped_loads)
{
    reseed(3);
    std::vector<float> a = random_floats(24);
    BinBuilder bb;
    bb.fp32(a);
    bb.fp32(a);
    bb.fp32(a);
    DataReaderFromMemory dr(bb.bytes.data(), bb.bytes.size());
    ModelBinFromDataReader mbd(dr);
    // the shaped overloads live in the base class (the derived class's load(w, type) hides them)
    const ModelBin& mb = mbd;
    Mat m2 = mb.load(6, 4, 0);
    EXPECT_EQ(m2.dims, 2);
    EXPECT_EQ(m2.w, 6);
    EXPECT_EQ(m2.h, 4);
    EXPECT_EQ(m2.row(3)[5], a[23]);
    Mat m3 = mb.load(3, 2, 4, 0); // 6 floats per channel: channel padding, copied
    EXPECT_EQ(m3.dims, 3);
    EXPECT_EQ(m3.c, 4);
    EXPECT_EQ(((const float*)m3.channel(3).data)[5], a[23]);
    EXPECT_EQ(((const float*)m3.channel(1).data)[0], a[6]);
    Mat m4 = mb.load(2, 2, 2, 3, 0);
    EXPECT_EQ(m4.dims, 4);
    EXPECT_EQ(((const float*)m4.channel(2).data)[7], a[23]);
    // impossible shapes
    QuietLog quiet;
    EXPECT_TRUE(mb.load(0, 3, 0).empty());
    EXPECT_TRUE(mb.load(-1, 0).empty());
    EXPECT_TRUE(mb.load(3, 2, -1, 0).empty());
    EXPECT_TRUE(mb.load(65536, 65536, 0).empty());
}

TEST(ModelBin, truncation_gives_empty_mats)
{
    reseed(4);
    std::vector<float> a = random_floats(10);
    std::vector<float> tab(256, 1.5f);
    std::vector<unsigned char> idx(10, 1);
    std::vector<signed char> q(10, 3);
    struct Case
    {
        const char* name;
        BinBuilder bb;
        int type;
    };
    std::vector<Case> cases(6);
    cases[0].name = "fp32";
    cases[0].bb.fp32(a);
    cases[1].name = "fp16";
    cases[1].bb.fp16(a);
    cases[2].name = "int8";
    cases[2].bb.int8(q);
    cases[3].name = "fp32 alt";
    cases[3].bb.fp32(a, TAG_FP32_ALT);
    cases[4].name = "table";
    cases[4].bb.table(tab, idx);
    cases[5].name = "type 1";
    cases[5].bb.type1(a);
    cases[5].type = 1;
    for (int k = 0; k < 5; k++)
        cases[k].type = 0;

    QuietLog quiet;
    for (const Case& c : cases)
    {
        // the complete buffer loads
        {
            DataReaderFromMemory dr(c.bb.bytes.data(), c.bb.bytes.size());
            ModelBinFromDataReader mb(dr);
            ASSERT_FALSE(mb.load(10, c.type).empty()) << c.name;
        }
        // every shorter prefix fails cleanly, from a sized reader and a streaming one
        for (size_t len = 0; len < c.bb.bytes.size(); len++)
        {
            // the int8 and table payloads are padded: dropping only padding may still load the values
            std::vector<unsigned char> prefix(c.bb.bytes.begin(), c.bb.bytes.begin() + len);
            prefix.reserve(prefix.size() + 1);
            DataReaderFromMemory dr(prefix.data(), prefix.size());
            ModelBinFromDataReader mb(dr);
            Mat m = mb.load(10, c.type);
            EXPECT_TRUE(m.empty()) << c.name << " truncated to " << len << " bytes";
            StreamOnlyReader sr(prefix.data(), prefix.size());
            ModelBinFromDataReader mb2(sr);
            Mat m2 = mb2.load(10, c.type);
            EXPECT_TRUE(m2.empty()) << c.name << " (stream) truncated to " << len << " bytes";
        }
    }
    // absurd sizes are rejected before reading
    BinBuilder small;
    small.fp32(a);
    DataReaderFromMemory dr(small.bytes.data(), small.bytes.size());
    ModelBinFromDataReader mb(dr);
    EXPECT_TRUE(mb.load(INT32_MAX, 0).empty());
    // unknown load type
    DataReaderFromMemory dr2(small.bytes.data(), small.bytes.size());
    ModelBinFromDataReader mb2(dr2);
    EXPECT_TRUE(mb2.load(10, 2).empty());
}

TEST(ModelBin, empty_reader_gives_zeros)
{
    DataReaderFromEmpty dr;
    ModelBinFromDataReader mbd(dr);
    const ModelBin& mb = mbd;
    for (int type : {0, 1})
    {
        Mat m = mb.load(37, type);
        ASSERT_FALSE(m.empty());
        EXPECT_EQ(m.elemsize, 4u);
        for (int i = 0; i < 37; i++)
            ASSERT_EQ(m[i], 0.f);
    }
    Mat m3 = mb.load(4, 3, 2, 0);
    ASSERT_FALSE(m3.empty());
    EXPECT_EQ(m3.c, 2);
    unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(dr.read(buf, 8), 8u);
    for (unsigned char b : buf)
        EXPECT_EQ(b, 0);
}

TEST(ModelBin, mmap_reader)
{
    reseed(5);
    std::vector<float> a = random_floats(33), b = random_floats(2);
    BinBuilder bb;
    bb.fp32(a);
    bb.fp16(b);
    bb.type1(b);
    char path[] = "/tmp/kite_test_modelbin_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, bb.bytes.data(), bb.bytes.size()), (ssize_t)bb.bytes.size());
    close(fd);
    {
        DataReaderFromMmap dr(path);
        ASSERT_TRUE(dr.ok());
        EXPECT_EQ(dr.remaining(), bb.bytes.size());
        ModelBinFromDataReader mb(dr);
        Mat ma = mb.load(33, 0);
        EXPECT_EQ(check_floats(ma, a), "");
        EXPECT_EQ(ma.refcount, nullptr); // referenced in the mapping, not copied
        Mat mh = mb.load(2, 0);
        EXPECT_NEAR(mh[0], b[0], 1e-2f);
        EXPECT_EQ(check_floats(mb.load(2, 1), b), "");
        EXPECT_EQ(dr.remaining(), 0u);
        QuietLog quiet;
        EXPECT_TRUE(mb.load(1, 1).empty()); // nothing left
    }
    unlink(path);
    DataReaderFromMmap missing("/nonexistent/kite/file.bin");
    EXPECT_FALSE(missing.ok());
    unsigned char buf[4];
    EXPECT_EQ(missing.read(buf, 4), 0u);
    const void* ref = nullptr;
    EXPECT_EQ(missing.reference(4, &ref), 0u);
}

TEST(DataReader, memory_semantics)
{
    unsigned char bytes[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    DataReaderFromMemory dr(bytes, sizeof(bytes));
    EXPECT_EQ(dr.remaining(), 10u);
    unsigned char buf[4];
    EXPECT_EQ(dr.read(buf, 3), 3u);
    EXPECT_EQ(buf[2], 2);
    const void* ref = nullptr;
    EXPECT_EQ(dr.reference(4, &ref), 4u);
    EXPECT_EQ(ref, bytes + 3);
    EXPECT_EQ(dr.consumed(), 7u);
    EXPECT_EQ(dr.reference(4, &ref), 0u); // only 3 left
    EXPECT_EQ(dr.read(buf, 4), 3u);     // a short read
    EXPECT_EQ(buf[0], 7);
    EXPECT_EQ(dr.remaining(), 0u);
    EXPECT_EQ(dr.read(buf, 4), 0u);
}

TEST(DataReader, stdio)
{
    char path[] = "/tmp/kite_test_stdio_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    const char text[] = "0123456789";
    ASSERT_EQ(write(fd, text, 10), 10);
    close(fd);
    FILE* fp = fopen(path, "rb");
    ASSERT_NE(fp, nullptr);
    DataReaderFromStdio dr(fp);
    EXPECT_EQ(dr.remaining(), 10u);
    char buf[8];
    EXPECT_EQ(dr.read(buf, 4), 4u);
    EXPECT_EQ(dr.remaining(), 6u);
    const void* ref = nullptr;
    EXPECT_EQ(dr.reference(2, &ref), 0u); // a file cannot be referenced
    EXPECT_EQ(dr.read(buf, 8), 6u);
    fclose(fp);
    unlink(path);
}
