// Budgeted pattern matching: placeholder until the budgeted matcher lands.
#include "loom_lua.h"
void loom_open_budgeted_strlib(lua_State *L) { (void)L; }
