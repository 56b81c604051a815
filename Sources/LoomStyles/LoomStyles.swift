/// Styles: MRGArchitect's property files for Loom (see docs/styles.md).
public enum LoomStyles {}
