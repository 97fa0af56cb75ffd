#ifndef KITE_LOG_H
#define KITE_LOG_H

#include <cstdarg>

namespace kite {

// Every error in the runtime is reported through here: one line that says what
// and where. The default sink writes to stderr; applications may redirect it.
typedef void (*log_sink_func)(int level, const char* message, void* userdata);
enum LogLevel { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2 };

void set_log_sink(log_sink_func sink, void* userdata);
void log_message(int level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// the last error message logged on this thread ("" if none)
const char* last_error();
void clear_last_error();

} // namespace kite

#define KITE_LOGE(...) ::kite::log_message(::kite::LOG_ERROR, __VA_ARGS__)
#define KITE_LOGW(...) ::kite::log_message(::kite::LOG_WARN, __VA_ARGS__)

#endif // KITE_LOG_H
