// Constraint strengths (kiwi's strength.h) and Auto Layout priorities mapped onto them.

public enum Strength {
    /// kiwi's `strength::create(a, b, c, w)`: each of a·w, b·w, c·w clamped to 0…1000 and
    /// weighted 1,000,000 / 1,000 / 1.
    public static func create(_ a: Double, _ b: Double, _ c: Double, _ w: Double = 1) -> Double {
        var result = 0.0
        result += max(0, min(1000, a * w)) * 1_000_000
        result += max(0, min(1000, b * w)) * 1000
        result += max(0, min(1000, c * w))
        return result
    }

    /// 1,001,001,000.
    public static let required = create(1000, 1000, 1000)
    public static let strong = create(1, 0, 0)
    public static let medium = create(0, 1, 0)
    public static let weak = create(0, 0, 1)

    /// kiwi's `strength::clip`: into 0…required.
    public static func clip(_ value: Double) -> Double { max(0, min(required, value)) }

    /// An Auto Layout priority (1…1000) as a strength: 1000 is `required`; N below 1000 is
    /// `create(0, N, 0)` = N × 1,000, i.e. N medium units — monotonic, `high` (750) gives
    /// 750,000 (three quarters of `strong`), `low` (250) 250,000, priority 1 exactly `medium`.
    /// Values outside 1…1000 are clamped into it.
    public static func forPriority(_ priority: Double) -> Double {
        let p = max(1, min(1000, priority))
        return p >= 1000 ? required : create(0, p, 0)
    }
}

/// Auto Layout's named priorities.
public enum Priority {
    public static let required: Double = 1000
    public static let high: Double = 750
    public static let low: Double = 250
}
