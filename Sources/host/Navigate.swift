import ArgumentParser

struct Navigate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "(in progress)")
    func run() throws { throw ExitCode(1) }
}
