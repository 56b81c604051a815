// HarfBuzz from the system (Debian libharfbuzz-dev), for LoomText's text shaping: glyphs,
// advances with GPOS kerning, ligatures and contextual forms, per script and direction.
#include <hb.h>
#include <hb-ot.h>
