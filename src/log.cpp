#include "log.h"

#include <cstdio>
#include <cstring>

namespace kite {

static log_sink_func g_sink = nullptr;
static void* g_sink_userdata = nullptr;
static thread_local char t_last_error[512];

void set_log_sink(log_sink_func sink, void* userdata)
{
    g_sink = sink;
    g_sink_userdata = userdata;
}

void log_message(int level, const char* fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (level == LOG_ERROR)
        memcpy(t_last_error, buf, sizeof(buf));
    if (g_sink)
    {
        g_sink(level, buf, g_sink_userdata);
        return;
    }
    fprintf(stderr, "kite: %s%s\n", level == LOG_ERROR ? "error: " : level == LOG_WARN ? "warning: " : "", buf);
}

const char* last_error()
{
    return t_last_error;
}

void clear_last_error()
{
    t_last_error[0] = 0;
}

} // namespace kite
