#include "datareader.h"

#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define KITE_HAVE_MMAP 1
#endif

namespace kite {

DataReader::~DataReader() {}
size_t DataReader::read(void*, size_t) const { return 0; }
size_t DataReader::reference(size_t, const void**) const { return 0; }
size_t DataReader::remaining() const { return SIZE_MAX; }

DataReaderFromStdio::DataReaderFromStdio(FILE* _fp) : fp(_fp), end(SIZE_MAX)
{
    long pos = ftell(fp);
    if (pos >= 0 && fseek(fp, 0, SEEK_END) == 0)
    {
        long e = ftell(fp);
        if (e >= 0)
            end = (size_t)e;
        fseek(fp, pos, SEEK_SET);
    }
}

size_t DataReaderFromStdio::read(void* buf, size_t size) const
{
    return fread(buf, 1, size, fp);
}

size_t DataReaderFromStdio::remaining() const
{
    if (end == SIZE_MAX)
        return SIZE_MAX;
    long pos = ftell(fp);
    return pos < 0 || (size_t)pos > end ? 0 : end - (size_t)pos;
}

DataReaderFromMemory::DataReaderFromMemory(const unsigned char* _mem, size_t _size) : begin(_mem), mem(_mem), size(_size)
{
}

size_t DataReaderFromMemory::remaining() const
{
    return size == SIZE_MAX ? SIZE_MAX : size - (size_t)(mem - begin);
}

size_t DataReaderFromMemory::read(void* buf, size_t n) const
{
    size_t left = remaining();
    if (n > left)
        n = left;
    if (n == 0)
        return 0;
    memcpy(buf, mem, n);
    mem += n;
    return n;
}

size_t DataReaderFromMemory::reference(size_t n, const void** buf) const
{
    if (n > remaining())
        return 0;
    *buf = mem;
    mem += n;
    return n;
}

size_t DataReaderFromEmpty::read(void* buf, size_t size) const
{
    memset(buf, 0, size);
    return size;
}

DataReaderFromMmap::DataReaderFromMmap(const char* path) : base(nullptr), length(0), inner(nullptr)
{
#if KITE_HAVE_MMAP
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
    {
        void* p = mmap(nullptr, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED)
        {
            base = p;
            length = (size_t)st.st_size;
            inner = new DataReaderFromMemory((const unsigned char*)p, length);
        }
    }
    close(fd);
#else
    (void)path;
#endif
}

DataReaderFromMmap::~DataReaderFromMmap()
{
    delete inner;
#if KITE_HAVE_MMAP
    if (base)
        munmap(base, length);
#endif
}

size_t DataReaderFromMmap::read(void* buf, size_t size) const { return inner ? inner->read(buf, size) : 0; }
size_t DataReaderFromMmap::reference(size_t size, const void** buf) const { return inner ? inner->reference(size, buf) : 0; }
size_t DataReaderFromMmap::remaining() const { return inner ? inner->remaining() : 0; }

} // namespace kite
