// Wireframe pictures (SVG, PNG) of a LayoutResult.
import LoomText
