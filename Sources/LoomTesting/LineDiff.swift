enum LineDiff {
    /// `- line` / `+ line` for the lines that differ, in order.
    static func diff(_ a: [String], _ b: [String]) -> [String] {
        let n = a.count, m = b.count
        if n * m > 4_000_000 { return a.map { "- " + $0 } + b.map { "+ " + $0 } }
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        if n > 0 && m > 0 {
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
                }
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, a[i] == b[j] {
                i += 1; j += 1
            } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
                out.append("+ " + b[j]); j += 1
            } else {
                out.append("- " + a[i]); i += 1
            }
        }
        return out
    }
}
