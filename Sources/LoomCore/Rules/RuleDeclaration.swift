/// What a plugin declares beside a rule in `host.rule(name, evaluate, options)`: the argument
/// schema (`options.args`), the examples (`options.examples`) and the attributes it reads
/// (`options.reads`).
public struct RuleDeclaration: Sendable {
    public var arguments: ArgumentSchema?
    public var examples: [RuleExample]
    public var reads: AttributeReads?

    public init(arguments: ArgumentSchema? = nil, examples: [RuleExample] = [], reads: AttributeReads? = nil) {
        self.arguments = arguments
        self.examples = examples
        self.reads = reads
    }

    /// Reads `args` and `examples` from a rule's options (JSON): a malformed one is an error.
    public static func parse(_ options: JSONValue) -> Result<RuleDeclaration, SchemaError> {
        var d = RuleDeclaration()
        guard case .object(let o) = options else { return .success(d) }
        if let a = o["args"] {
            switch ArgumentSchema.parseArguments(a) {
            case .success(let s): d.arguments = s
            case .failure(let e): return .failure(e)
            }
        }
        if let r = o["reads"] {
            switch AttributeReads.parse(r) {
            case .success(let x): d.reads = x
            case .failure(let e): return .failure(e)
            }
        }
        if let e = o["examples"] {
            guard case .array(let list) = e else {
                if case .object(let x) = e, x.isEmpty { return .success(d) }
                return .failure(SchemaError("options.examples must be a list of { user = {…}, args = …, expect = … }"))
            }
            for (i, item) in list.enumerated() {
                switch RuleExample.parse(item, path: "options.examples[\(i + 1)]") {
                case .success(let x): d.examples.append(x)
                case .failure(let err): return .failure(err)
                }
            }
        }
        return .success(d)
    }
}

/// One declared example of a rule: these arguments, for this user, give this result. Run by the
/// generic rule-examples test.
public struct RuleExample: Sendable, Hashable {
    public enum Expectation: Sendable, Hashable {
        case result(Bool)
        /// A message (a substring of it) the host's argument check or the evaluation reports.
        case error(String)
    }

    public var user: JSONValue
    public var args: JSONValue?
    public var expect: Expectation

    public init(user: JSONValue, args: JSONValue?, expect: Expectation) {
        self.user = user
        self.args = args
        self.expect = expect
    }

    static let keys = ["user", "args", "expect"]

    static func parse(_ v: JSONValue, path: String) -> Result<RuleExample, SchemaError> {
        guard case .object(let o) = v else { return .failure(SchemaError("\(path) must be a table { user = {…}, args = …, expect = … }")) }
        for k in o.keys where !keys.contains(k) {
            return .failure(SchemaError("\(path): unknown key '\(k)'\(DidYouMean.hint(k, among: keys))"))
        }
        let expect: Expectation
        switch o["expect"] {
        case .bool(let b)?: expect = .result(b)
        case .string(let s)?: expect = .error(s)
        default: return .failure(SchemaError("\(path).expect must be true, false or an error message"))
        }
        var user = o["user"] ?? .object([:])
        if case .array(let a) = user, a.isEmpty { user = .object([:]) }
        guard case .object = user else { return .failure(SchemaError("\(path).user must be a table of user attributes")) }
        return .success(RuleExample(user: user, args: o["args"], expect: expect))
    }
}
