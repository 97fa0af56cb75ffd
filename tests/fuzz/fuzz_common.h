#ifndef KITE_FUZZ_COMMON_H
#define KITE_FUZZ_COMMON_H

// Shared by the libFuzzer targets: errors are expected by the thousand, so the
// log goes nowhere; but a failure must always leave a message behind.

#include "log.h"

#include <cstdio>
#include <cstdlib>

namespace kite_fuzz {

inline void quiet_sink(int, const char*, void*)
{
}

inline void init_once()
{
    static bool done = false;
    if (!done)
    {
        kite::set_log_sink(quiet_sink, nullptr);
        done = true;
    }
}

// A failed load that logged nothing is a bug: the user gets no reason.
inline void check_failure_has_message(int ret, const char* what)
{
    if (ret != 0 && kite::last_error()[0] == 0)
    {
        fprintf(stderr, "%s failed (%d) without an error message\n", what, ret);
        abort();
    }
}

} // namespace kite_fuzz

#endif // KITE_FUZZ_COMMON_H
