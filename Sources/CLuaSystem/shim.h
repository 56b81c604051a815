#ifndef CLUASYSTEM_SHIM_H
#define CLUASYSTEM_SHIM_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#endif
