/// Why fonts could not be loaded: no usable font file in the directories searched, or one file
/// FreeType cannot read (`FontLibrary.rejectedFiles`). `message` is a complete sentence for the user.
public struct FontError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(message: String) {
        self.message = message
    }
    public var description: String { message }
}
