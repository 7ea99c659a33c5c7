machine: {topology: switch, ranks: 4}
communication: {collective: broadcast, root: 0, bytes: 64}
algorithm: binomial
