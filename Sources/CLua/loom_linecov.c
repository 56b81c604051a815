// Lua line coverage: a line hook counting the lines each chunk runs, and the executable lines
// of every chunk that ran (from its bytecode's line information). See include/loom_lua.h.
//
// Off unless asked for: only a state created while loom_linecov_record_new_states(1) is in
// force on the creating thread records (its threads then have a line hook, joined by the
// budget's count hook only when the watchdog stops a call; loom_hook dispatches on the event).
#include "loom_internal.h"

typedef struct linecov_file {
    char *source;         // the chunk's source name ("@path", "=name", ...)
    int64_t *counts;      // hits by line
    uint8_t *executable;  // 1 for a line with code (from the line information)
    uint8_t *registered;  // 1 for a linedefined whose function's lines are known
    int cap;              // capacity of counts / executable / registered (lines)
} linecov_file;

struct loom_linecov {
    linecov_file *files;
    int count, cap;
    const char *last_source;  // the source pointer of the last lookup (a cache)
    int last_file;
    // The function of the last line event and its file: most line events follow one in the
    // same function, and then cost no lua_getinfo("S") at all. The function is kept alive in
    // the registry (at &pin_key, made when recording starts, so updating it never allocates),
    // so its address cannot be reused by another function meanwhile.
    const void *last_fn;
    int last_fn_file;
};

static char pin_key;

// Makes the registry slot that keeps the last function alive (an allocation, done once, when
// recording starts, never inside the hook).
static void make_pin(lua_State *L) {
    lua_pushboolean(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &pin_key);
}

static _Thread_local int record_new_states = 0;

void loom_linecov_record_new_states(int on) { record_new_states = on ? 1 : 0; }

void loom_linecov_attach_pending(lua_State *L, loom_limits *lim) {
    if (!record_new_states || lim->linecov != NULL) return;
    lim->linecov = calloc(1, sizeof(loom_linecov));
    if (lim->linecov != NULL) make_pin(L);
}

void loom_linecov_free(loom_limits *lim) {
    loom_linecov *c = lim->linecov;
    if (c == NULL) return;
    for (int i = 0; i < c->count; i++) {
        free(c->files[i].source);
        free(c->files[i].counts);
        free(c->files[i].executable);
        free(c->files[i].registered);
    }
    free(c->files);
    free(c);
    lim->linecov = NULL;
}

int loom_linecov_start(lua_State *L) {
    loom_limits *lim = loom_limits_from(L);
    if (lim->linecov == NULL) {
        lim->linecov = calloc(1, sizeof(loom_linecov));
        if (lim->linecov == NULL) return 0;
        make_pin(L);
    }
    loom_disarm(lim->main_thread ? lim->main_thread : L, lim);  // the line hook
    return 1;
}

static int grow(linecov_file *f, int line) {
    if (line < f->cap) return 1;
    int cap = f->cap ? f->cap : 64;
    while (cap <= line) cap *= 2;
    int64_t *counts = realloc(f->counts, sizeof(int64_t) * (size_t)cap);
    if (counts == NULL) return 0;
    f->counts = counts;
    uint8_t *ex = realloc(f->executable, (size_t)cap);
    if (ex == NULL) return 0;
    f->executable = ex;
    uint8_t *reg = realloc(f->registered, (size_t)cap);
    if (reg == NULL) return 0;
    f->registered = reg;
    memset(f->counts + f->cap, 0, sizeof(int64_t) * (size_t)(cap - f->cap));
    memset(f->executable + f->cap, 0, (size_t)(cap - f->cap));
    memset(f->registered + f->cap, 0, (size_t)(cap - f->cap));
    f->cap = cap;
    return 1;
}

static int file_index(loom_linecov *c, const char *source) {
    if (c->last_source == source && c->last_file >= 0 && strcmp(c->files[c->last_file].source, source) == 0)
        return c->last_file;
    int found = -1;
    for (int i = 0; i < c->count; i++) {
        if (strcmp(c->files[i].source, source) == 0) { found = i; break; }
    }
    if (found < 0) {
        if (c->count == c->cap) {
            int cap = c->cap ? c->cap * 2 : 8;
            linecov_file *files = realloc(c->files, sizeof(linecov_file) * (size_t)cap);
            if (files == NULL) return -1;
            c->files = files;
            c->cap = cap;
        }
        char *copy = strdup(source);
        if (copy == NULL) return -1;
        memset(&c->files[c->count], 0, sizeof(linecov_file));
        c->files[c->count].source = copy;
        found = c->count++;
    }
    c->last_source = source;
    c->last_file = found;
    return found;
}

// ---------------------------------------------------------------------------------------------
// Executable lines: the running function is dumped (lua_dump, with debug information) and the
// line information of it and of every function nested in it is read back, as lua_getinfo's 'L'
// computes active lines (ldebug.c collectvalidlines), nested functions included.

// The dump's buffer and reader: loom_dump.c.
typedef loom_dump_reader reader;

static void skip_string(reader *r) {
    size_t len;
    loom_dump_string(r, &len);
}

static void mark(linecov_file *f, int line) {
    if (line >= 0 && grow(f, line)) f->executable[line] = 1;
}

// One function (and, recursively, its nested functions) of a dump.
static void read_function(reader *r, linecov_file *f) {
    if (!r->ok) return;
    skip_string(r);  // source
    int linedefined = (int)loom_dump_size(r);
    (void)loom_dump_size(r);  // lastlinedefined
    loom_dump_skip(r, 1);          // numparams
    int is_vararg = r->ok && r->p < r->end ? *r->p : 0;
    loom_dump_skip(r, 2);          // is_vararg, maxstacksize
    size_t ncode = loom_dump_size(r);
    loom_dump_skip(r, ncode * 4);  // instructions
    size_t nk = loom_dump_size(r);
    for (size_t i = 0; i < nk && r->ok; i++) {
        if (r->p >= r->end) { r->ok = 0; return; }
        int tag = *r->p++;
        if (tag == 0x13) loom_dump_skip(r, sizeof(lua_Number));   // float
        else if (tag == 0x03) loom_dump_skip(r, sizeof(lua_Integer));  // integer
        else if (tag == 0x04 || tag == 0x14) skip_string(r);  // strings
    }
    size_t nup = loom_dump_size(r);
    loom_dump_skip(r, nup * 3);
    size_t np = loom_dump_size(r);
    for (size_t i = 0; i < np && r->ok; i++) read_function(r, f);
    if (!r->ok) return;
    size_t nline = loom_dump_size(r);
    const signed char *lineinfo = (const signed char *)r->p;
    loom_dump_skip(r, nline);
    size_t nabs = loom_dump_size(r);
    const unsigned char *abs = r->p;
    for (size_t i = 0; i < nabs && r->ok; i++) { (void)loom_dump_size(r); (void)loom_dump_size(r); }
    size_t nloc = loom_dump_size(r);
    for (size_t i = 0; i < nloc && r->ok; i++) { skip_string(r); (void)loom_dump_size(r); (void)loom_dump_size(r); }
    size_t nupn = loom_dump_size(r);
    for (size_t i = 0; i < nupn && r->ok; i++) skip_string(r);
    if (!r->ok) return;
    if (grow(f, linedefined)) f->registered[linedefined] = 1;
    // The lines, as collectvalidlines: a vararg function's first instruction (VARARGPREP) is
    // not a line of its own.
    int line = linedefined;
    reader ar = { abs, r->end, 1 };
    size_t next_abs = 0;
    int abs_pc = -1, abs_line = 0;
    for (size_t pc = 0; pc < nline; pc++) {
        if (lineinfo[pc] != -0x80) {
            line += lineinfo[pc];
        } else {
            while (next_abs < nabs && abs_pc < (int)pc) {
                abs_pc = (int)loom_dump_size(&ar);
                abs_line = (int)loom_dump_size(&ar);
                next_abs++;
            }
            if (abs_pc == (int)pc) line = abs_line;
        }
        if (pc == 0 && is_vararg) continue;
        mark(f, line);
    }
}

static void register_function(lua_State *L, lua_Debug *ar, linecov_file *f) {
    if (!lua_getinfo(L, "f", ar)) return;
    loom_dump_buffer b = { NULL, 0, 0, SIZE_MAX };
    int status = lua_isfunction(L, -1) && !lua_iscfunction(L, -1) ? lua_dump(L, loom_dump_writer, &b, 0) : 1;
    lua_pop(L, 1);
    reader r = { b.bytes, b.bytes + b.len, 1 };
    if (status == 0 && loom_dump_header(&r)) read_function(&r, f);
    free(b.bytes);
    if (ar->linedefined >= 0 && grow(f, ar->linedefined)) f->registered[ar->linedefined] = 1;
}

void loom_linecov_line(lua_State *L, lua_Debug *ar) {
    loom_linecov *c = loom_limits_from(L)->linecov;
    if (c == NULL || !lua_getinfo(L, "f", ar)) return;
    const void *fn = lua_topointer(L, -1);
    int i = c->last_fn_file;
    if (fn != c->last_fn) {
        // Another function: find its chunk, learn its lines once, and pin it (replacing the
        // previous one in the existing registry slot: no allocation).
        if (!lua_getinfo(L, "S", ar) || ar->source == NULL || (i = file_index(c, ar->source)) < 0) {
            lua_pop(L, 1);
            return;
        }
        linecov_file *f = &c->files[i];
        if (ar->linedefined >= 0 && grow(f, ar->linedefined) && !f->registered[ar->linedefined])
            register_function(L, ar, f);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &pin_key);  // pops the function
        c->last_fn = fn;
        c->last_fn_file = i;
    } else {
        lua_pop(L, 1);
    }
    linecov_file *f = &c->files[i];
    int line = ar->currentline;
    if (line < 0 || !grow(f, line)) return;
    f->counts[line]++;
    f->executable[line] = 1;
}

int loom_linecov_file_count(loom_limits *lim) { return lim->linecov ? lim->linecov->count : 0; }

const char *loom_linecov_file_source(loom_limits *lim, int i) {
    loom_linecov *c = lim->linecov;
    return c && i >= 0 && i < c->count ? c->files[i].source : NULL;
}

int loom_linecov_file_lines(loom_limits *lim, int i) {
    loom_linecov *c = lim->linecov;
    return c && i >= 0 && i < c->count ? c->files[i].cap : 0;
}

int64_t loom_linecov_hits(loom_limits *lim, int i, int line) {
    loom_linecov *c = lim->linecov;
    if (c == NULL || i < 0 || i >= c->count) return -1;
    linecov_file *f = &c->files[i];
    if (line < 0 || line >= f->cap || !f->executable[line]) return -1;
    return f->counts[line];
}
