// Lua plugins feeding the core factory.
