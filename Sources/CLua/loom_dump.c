// Reading Lua 5.4's own dumps (lua_dump): the buffer a dump is written into and the reader's
// primitives, shared by line coverage (loom_linecov.c: the lines of a function and of those
// nested in it) and plain views (loom_plain_view.c: how a rule uses its first parameter). The
// format is ldump.c's, the same in every 5.4 release. Declared in loom_internal.h.
#include "loom_internal.h"

int loom_dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
    (void)L;
    loom_dump_buffer *b = ud;
    if (sz > b->limit - b->len) return 1;
    if (b->len + sz > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + sz) cap *= 2;
        unsigned char *grown = realloc(b->bytes, cap);
        if (grown == NULL) return 1;
        b->bytes = grown;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, p, sz);
    b->len += sz;
    return 0;
}

unsigned loom_dump_byte(loom_dump_reader *r) {
    if (r->p >= r->end) {
        r->ok = 0;
        return 0;
    }
    return *r->p++;
}

void loom_dump_skip(loom_dump_reader *r, size_t n) {
    if ((size_t)(r->end - r->p) < n) {
        r->ok = 0;
        r->p = r->end;
        return;
    }
    r->p += n;
}

// ldump.c's dumpSize: 7 bits a byte, most significant first, the last byte's high bit set.
size_t loom_dump_size(loom_dump_reader *r) {
    size_t x = 0;
    for (int n = 0; n < 10; n++) {
        unsigned b = loom_dump_byte(r);
        if (!r->ok) return 0;
        if (x > (SIZE_MAX >> 7)) break;
        x = (x << 7) | (b & 0x7f);
        if (b & 0x80) return x;
    }
    r->ok = 0;
    return 0;
}

// A string: its size plus one (0: none), then its bytes.
const unsigned char *loom_dump_string(loom_dump_reader *r, size_t *len) {
    size_t n = loom_dump_size(r);
    *len = 0;
    if (!r->ok || n == 0) return NULL;
    const unsigned char *s = r->p;
    loom_dump_skip(r, n - 1);
    if (!r->ok) return NULL;
    *len = n - 1;
    return s;
}

// The header (lundump.c's checkHeader) on this machine's sizes, then the main closure's upvalue
// count: the reader is left at the main function.
int loom_dump_header(loom_dump_reader *r) {
    static const unsigned char sig[] = { 0x1b, 'L', 'u', 'a', 0x54, 0, 0x19, 0x93, '\r', '\n', 0x1a, '\n' };
    if ((size_t)(r->end - r->p) < sizeof sig + 3 + 16 + 1 || memcmp(r->p, sig, sizeof sig) != 0) return 0;
    r->p += sizeof sig;
    if (loom_dump_byte(r) != 4 || loom_dump_byte(r) != sizeof(lua_Integer) || loom_dump_byte(r) != sizeof(lua_Number)) return 0;
    lua_Integer i;
    lua_Number d;
    memcpy(&i, r->p, sizeof i);
    memcpy(&d, r->p + sizeof i, sizeof d);
    if (i != 0x5678 || d != (lua_Number)370.5) return 0;
    r->p += sizeof i + sizeof d;
    loom_dump_byte(r);  // the main closure's upvalue count
    return r->ok;
}
