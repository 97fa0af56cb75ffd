#ifndef KITE_DATAREADER_H
#define KITE_DATAREADER_H

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace kite {

// Where model bytes come from. Implement this to load from an archive, an
// encrypted store or an asset manager.
class DataReader
{
public:
    virtual ~DataReader();
    // copy up to size bytes into buf; returns the number of bytes read
    virtual size_t read(void* buf, size_t size) const;
    // point *buf at the next size bytes without copying, if the source is in
    // memory; returns size on success, 0 if unsupported or not enough data
    virtual size_t reference(size_t size, const void** buf) const;
    // bytes left, or SIZE_MAX when unknown; used to reject absurd sizes early
    virtual size_t remaining() const;
};

class DataReaderFromStdio : public DataReader
{
public:
    explicit DataReaderFromStdio(FILE* fp);
    size_t read(void* buf, size_t size) const override;
    size_t remaining() const override;

private:
    FILE* fp;
    size_t end;
};

// Reads from memory the caller keeps alive; reference() hands out pointers
// into it, so weights are used in place.
class DataReaderFromMemory : public DataReader
{
public:
    DataReaderFromMemory(const unsigned char* mem, size_t size = SIZE_MAX);
    size_t read(void* buf, size_t size) const override;
    size_t reference(size_t size, const void** buf) const override;
    size_t remaining() const override;
    size_t consumed() const { return (size_t)(mem - begin); }

private:
    const unsigned char* begin;
    mutable const unsigned char* mem;
    size_t size;
};

// Endless zeros: for benchmarks that need no real weights.
class DataReaderFromEmpty : public DataReader
{
public:
    size_t read(void* buf, size_t size) const override;
};

// A read-only memory map of a whole file (POSIX); weights are referenced in
// place. ok() is false if the file could not be mapped.
class DataReaderFromMmap : public DataReader
{
public:
    explicit DataReaderFromMmap(const char* path);
    ~DataReaderFromMmap() override;
    bool ok() const { return base != nullptr; }
    size_t read(void* buf, size_t size) const override;
    size_t reference(size_t size, const void** buf) const override;
    size_t remaining() const override;

private:
    DataReaderFromMmap(const DataReaderFromMmap&) = delete;
    DataReaderFromMmap& operator=(const DataReaderFromMmap&) = delete;
    void* base;
    size_t length;
    DataReaderFromMemory* inner;
};

} // namespace kite

#endif // KITE_DATAREADER_H
