import Dispatch
import Foundation

/// Ctrl-C (SIGINT) and SIGTERM end a watching command cleanly: `stopped`, exit status 0.
enum StopOnInterrupt {
    // `sources` (keeping the signal sources alive) is in Unsafe.swift.

    static func install() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler {
                Console.out("stopped\n")
                Foundation.exit(0)
            }
            s.resume()
            sources.append(s)
        }
    }
}
