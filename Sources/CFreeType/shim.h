// FreeType 2 from the system (Debian libfreetype-dev), for LoomText's glyph metrics.
#include <ft2build.h>
#include FT_FREETYPE_H
