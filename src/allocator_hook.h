#ifndef KITE_ALLOCATOR_HOOK_H
#define KITE_ALLOCATOR_HOOK_H

#include <cstddef>

namespace kite {

// Fault injection for tests (issue 20): while a hook is set, every fast_malloc
// asks it first and fails (returns nullptr) when it returns false. The pool
// allocators take their new blocks from fast_malloc, so the hook sees every
// CPU allocation of Mat data, whichever allocator the Mat uses. nullptr
// removes the hook. Set or change it while no other thread allocates; the
// hook itself may be called from several threads at once.
typedef bool (*allocation_hook_func)(size_t size, void* userdata);
void set_allocation_hook(allocation_hook_func hook, void* userdata);

} // namespace kite

#endif // KITE_ALLOCATOR_HOOK_H
