return { secret = "PWNED: read outside the plugin folder" }
