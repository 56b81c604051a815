import ArgumentParser

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "(in progress)")
    func run() throws { throw ExitCode(1) }
}
