"""Keys and signatures: players' SSH keys (``keys``), OpenSSH signatures (``sshsig``), and a
player's file signed or committed (``files``). Below it: the rules and the store's reading of a
file a user names.
"""
