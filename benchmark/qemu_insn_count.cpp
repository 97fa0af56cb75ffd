// Dynamic guest instruction count of a program run under qemu-user, without a
// TCG plugin (Debian's qemu-user 7.2 is built without plugin support): a
// shared library preloaded into qemu itself (benchmark/qemu_insn_count.sh
// builds and runs it).
//
// qemu logs every translated block with its guest instructions (-d in_asm)
// and every execution of a block (-d exec; nochain turns block chaining off
// so that no execution goes unlogged). Written to a file or a pipe, that log
// costs one formatted line and one write() per executed block (qemu flushes
// after every log call): ~90% of the run time, the reader another part. This
// library instead takes over the log file qemu opens (the path in
// QEMU_INSN_COUNT_LOG, given to qemu as -D): qemu's formatted printing of an
// exec record ("Trace ...") is intercepted and its block address read from the
// arguments, without formatting; everything else (the in_asm listings, once
// per translation) goes through an in-memory FILE (fopencookie) to a text
// parser that records each block's instruction count. The two totals
// (instructions, block executions: little-endian uint64) live in the file
// named by QEMU_INSN_COUNT_OUT, mapped shared, so they are there however qemu
// ends (it leaves through the exit_group system call, with no exit hooks).
// QEMU_INSN_COUNT_MARKS (comma-separated symbol names of the guest program,
// '|' between names of one mark: qemu names an address by any of its aliases)
// adds, per mark, the instruction count when a block of that symbol first
// ran after the previous mark was hit (marks are taken in order): one
// forward pass is the count between its start and end functions, measured in
// one run.
// A block's count is that of its latest translation. Run the program
// single-threaded: several guest threads' records would interleave.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace {

// Hex number at p (no 0x prefix), stops at the first non-hex character.
uint64_t parse_hex(const char* p, const char* end)
{
    uint64_t v = 0;
    for (; p < end; p++)
    {
        const char c = *p;
        unsigned d;
        if (c >= '0' && c <= '9')
            d = unsigned(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = unsigned(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = unsigned(c - 'A' + 10);
        else
            break;
        v = v * 16 + d;
    }
    return v;
}

struct Counter
{
    std::unordered_map<uint64_t, uint32_t> sizes; // block start pc -> guest instructions
    uint64_t* totals = nullptr; // [instructions, block executions, mark 0, ...], the shared mapping
    std::vector<std::vector<std::string>> marks; // per mark, its names (aliases such as C1/C2)
    size_t next_mark = 0;

    void mark(const char* symbol)
    {
        if (next_mark >= marks.size() || !symbol)
            return;
        for (const std::string& name : marks[next_mark])
            if (name == symbol)
            {
                totals[2 + next_mark] = totals[0];
                next_mark++;
                return;
            }
    }
    bool listing = false; // inside an "IN:" block listing
    uint64_t block_pc = 0;
    uint32_t block_insns = 0;
    std::string partial; // a text line split across writes

    void exec(uint64_t pc)
    {
        totals[1]++;
        auto it = sizes.find(pc);
        if (it != sizes.end())
            totals[0] += it->second;
    }

    void end_listing()
    {
        if (listing && block_insns)
            sizes[block_pc] = block_insns;
        listing = false;
    }

    void line(const char* p, const char* end)
    {
        const size_t n = size_t(end - p);
        if (n > 6 && memcmp(p, "Trace ", 6) == 0)
        {
            // Trace 0: 0xhost [cs_base/pc/flags/cflags] symbol
            end_listing();
            const char* b = static_cast<const char*>(memchr(p, '[', n));
            const char* s = b ? static_cast<const char*>(memchr(b, '/', size_t(end - b))) : nullptr;
            if (s)
                exec(parse_hex(s + 1, end));
            return;
        }
        if (n >= 3 && memcmp(p, "IN:", 3) == 0)
        {
            end_listing();
            listing = true;
            block_insns = 0;
            return;
        }
        if (!listing)
            return;
        if (n > 2 && p[0] == '0' && p[1] == 'x')
        {
            if (block_insns == 0)
                block_pc = parse_hex(p + 2, end);
            block_insns++;
        }
        else
        {
            end_listing();
        }
    }

    void text(const char* p, size_t n)
    {
        const char* end = p + n;
        while (p < end)
        {
            const char* nl = static_cast<const char*>(memchr(p, '\n', size_t(end - p)));
            if (!nl)
            {
                partial.append(p, end);
                return;
            }
            if (!partial.empty())
            {
                partial.append(p, nl);
                line(partial.data(), partial.data() + partial.size());
                partial.clear();
            }
            else
            {
                line(p, nl);
            }
            p = nl + 1;
        }
    }
};

Counter* counter = nullptr;
FILE* log_file = nullptr; // the FILE qemu logs to, ours

// exec record formats: 64-bit and 32-bit guests (TARGET_FMT_lx)
const char kTrace64[] = "Trace %d: %p [%016" PRIx64 "/%016" PRIx64 "/%08x/%08x] %s\n";
const char kTrace32[] = "Trace %d: %p [%08x/%08x/%08x/%08x] %s\n";

ssize_t cookie_write(void*, const char* buf, size_t size)
{
    counter->text(buf, size);
    return (ssize_t)size;
}

template<class F>
F real(const char* name)
{
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// true when the call was an exec record, counted
bool take_trace(FILE* stream, const char* fmt, va_list ap)
{
    if (!log_file || stream != log_file || fmt[0] != 'T')
        return false;
    const bool wide = strcmp(fmt, kTrace64) == 0;
    if (!wide && strcmp(fmt, kTrace32) != 0)
        return false;
    va_list a;
    va_copy(a, ap);
    (void)va_arg(a, int);   // cpu index
    (void)va_arg(a, void*); // host code
    if (wide)
        (void)va_arg(a, uint64_t); // cs_base
    else
        (void)va_arg(a, unsigned);
    const uint64_t pc = wide ? va_arg(a, uint64_t) : va_arg(a, unsigned);
    (void)va_arg(a, unsigned); // flags
    (void)va_arg(a, unsigned); // cflags
    fflush(stream);            // an in_asm listing still buffered comes first
    counter->mark(va_arg(a, const char*));
    counter->exec(pc);
    va_end(a);
    return true;
}

} // namespace

extern "C" {

FILE* fopen64(const char* path, const char* mode)
{
    static auto next = real<FILE* (*)(const char*, const char*)>("fopen64");
    const char* want = getenv("QEMU_INSN_COUNT_LOG");
    const char* out = getenv("QEMU_INSN_COUNT_OUT");
    if (!log_file && want && out && strcmp(path, want) == 0)
    {
        counter = new Counter;
        if (const char* marks = getenv("QEMU_INSN_COUNT_MARKS"))
        {
            std::string all = marks;
            for (size_t b = 0; b < all.size();)
            {
                size_t e = all.find(',', b);
                if (e == std::string::npos)
                    e = all.size();
                std::vector<std::string> names;
                for (size_t nb = b; nb < e;)
                {
                    size_t ne = all.find('|', nb);
                    if (ne == std::string::npos || ne > e)
                        ne = e;
                    if (ne > nb)
                        names.push_back(all.substr(nb, ne - nb));
                    nb = ne + 1;
                }
                if (!names.empty())
                    counter->marks.push_back(names);
                b = e + 1;
            }
        }
        const size_t bytes = (2 + counter->marks.size()) * sizeof(uint64_t);
        const int fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
            return nullptr;
        void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (m == MAP_FAILED)
            return nullptr;
        counter->totals = static_cast<uint64_t*>(m);
        for (size_t i = 0; i < counter->marks.size(); i++)
            counter->totals[2 + i] = UINT64_MAX; // not reached
        cookie_io_functions_t io = {nullptr, cookie_write, nullptr, nullptr};
        log_file = fopencookie(nullptr, "w", io);
        if (log_file)
            setvbuf(log_file, nullptr, _IOFBF, 1 << 20);
        return log_file;
    }
    return next(path, mode);
}

FILE* fopen(const char* path, const char* mode)
{
    return fopen64(path, mode);
}

int __vfprintf_chk(FILE* stream, int flag, const char* fmt, va_list ap)
{
    static auto next = real<int (*)(FILE*, int, const char*, va_list)>("__vfprintf_chk");
    if (take_trace(stream, fmt, ap))
        return 1;
    return next(stream, flag, fmt, ap);
}

int vfprintf(FILE* stream, const char* fmt, va_list ap)
{
    static auto next = real<int (*)(FILE*, const char*, va_list)>("vfprintf");
    if (take_trace(stream, fmt, ap))
        return 1;
    return next(stream, fmt, ap);
}

} // extern "C"
