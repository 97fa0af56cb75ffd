/*
 * Dynamic guest instruction count of a program run under qemu-user, as a TCG
 * plugin (qemu-aarch64 -plugin qemu_insn_plugin.so[,mark=...]...):
 * benchmark/qemu_insn_count.sh builds and runs it.
 *
 * Every translated block gets an inline 64-bit add of its instruction count,
 * executed each time the block runs (no call out of the generated code), so
 * the count costs a small fraction of qemu's own run time. Marks (one
 * "mark=" argument each: a symbol name of the guest program, '|' between
 * aliases of one mark, such as a constructor's C1/C2 names) record the
 * count when a block lying in that symbol first runs after the previous mark
 * was hit (marks are taken in order), before that block's instructions: the
 * blocks of marked symbols count through a callback instead of the inline
 * add. One forward pass is the count between its start and end functions,
 * measured in one run. Output at exit through qemu_plugin_outs (qemu's log:
 * -d plugin, -D FILE): "instructions N", "block executions N" and per mark
 * "mark NAMES N" (N is "-" when the mark was never hit).
 *
 * Single guest thread: the counters are plain (non-atomic) shared words.
 * Declares the few entry points of qemu's documented plugin API it uses
 * (API version 1: qemu 4.2 .. 8.2; qemu refuses a plugin whose version it
 * does not support with a message naming both).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct
{
    const char* target_name;
    struct
    {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union
    {
        struct
        {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags
{
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op
{
    QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void* userdata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb* tb, vcpu_udata_cb cb,
                                          enum qemu_plugin_cb_flags flags, void* userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void* userdata);
void qemu_plugin_outs(const char* string);

EXPORT int qemu_plugin_version = 1;

enum
{
    kMaxMarks = 16,
    kMaxAliases = 4,
};

static uint64_t insns;  /* guest instructions executed */
static uint64_t blocks; /* block executions */
static struct
{
    char* names; /* the argument as given, for the output */
    char* alias[kMaxAliases];
    int n_alias;
    uint64_t at; /* UINT64_MAX until hit */
} marks[kMaxMarks];
static int n_marks;
static int next_mark;

/* A marked symbol's block: its instruction count and the mark its symbol names. */
struct marked_block
{
    uint64_t n_insns;
    int mark;
};

static int mark_of(const char* symbol)
{
    if (!symbol || !symbol[0])
        return -1;
    for (int m = 0; m < n_marks; m++)
        for (int a = 0; a < marks[m].n_alias; a++)
            if (strcmp(symbol, marks[m].alias[a]) == 0)
                return m;
    return -1;
}

static void marked_exec(unsigned int vcpu_index, void* userdata)
{
    (void)vcpu_index;
    const struct marked_block* b = (const struct marked_block*)userdata;
    if (b->mark == next_mark)
    {
        marks[next_mark].at = insns;
        next_mark++;
    }
    insns += b->n_insns;
    blocks++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb* tb)
{
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    const int m = n_marks && n ? mark_of(qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0))) : -1;
    if (m < 0)
    {
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &blocks, 1);
        return;
    }
    /* once per translation of a marked block (a few); kept to the end */
    struct marked_block* b = (struct marked_block*)malloc(sizeof(*b));
    if (!b)
    {
        qemu_plugin_outs("qemu_insn_plugin: out of memory\n");
        abort();
    }
    b->n_insns = n;
    b->mark = m;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, marked_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void* userdata)
{
    (void)id;
    (void)userdata;
    char line[512];
    snprintf(line, sizeof(line), "instructions %" PRIu64 "\nblock executions %" PRIu64 "\n", insns, blocks);
    qemu_plugin_outs(line);
    for (int m = 0; m < n_marks; m++)
    {
        if (marks[m].at == UINT64_MAX)
            snprintf(line, sizeof(line), "mark %s -\n", marks[m].names);
        else
            snprintf(line, sizeof(line), "mark %s %" PRIu64 "\n", marks[m].names, marks[m].at);
        qemu_plugin_outs(line);
    }
}

/* "mark=A|A2": one more mark, aliases split at '|'. */
static int add_mark(const char* value)
{
    if (!value[0] || n_marks == kMaxMarks)
        return -1;
    char* names = strdup(value);
    char* aliases = strdup(value);
    if (!names || !aliases)
        return -1;
    marks[n_marks].names = names;
    marks[n_marks].at = UINT64_MAX;
    for (char *save = NULL, *a = strtok_r(aliases, "|", &save); a; a = strtok_r(NULL, "|", &save))
    {
        if (marks[n_marks].n_alias == kMaxAliases)
            return -1;
        marks[n_marks].alias[marks[n_marks].n_alias++] = a;
    }
    if (marks[n_marks].n_alias == 0)
        return -1;
    n_marks++;
    return 0;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
    {
        if (strncmp(argv[i], "mark=", 5) == 0 && add_mark(argv[i] + 5) == 0)
            continue;
        fprintf(stderr, "qemu_insn_plugin: bad argument '%s' (expected mark=SYMBOL[|ALIAS...], at most %d marks of %d aliases)\n",
                argv[i], kMaxMarks, kMaxAliases);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
