"""Computes the ticket test vectors of libs/tickets with a different stack than ours.

Our code uses @noble/curves and @noble/hashes; these vectors come from the Python Ethereum libraries
(eth-abi's packed encoding, eth-hash/pycryptodome keccak, eth-account/eth-keys signing and recovery), so a
shared mistake would have to be made twice, in two languages. Run it in a scratch virtualenv:

    python3 -m venv /tmp/vec && /tmp/vec/bin/pip install eth-account
    /tmp/vec/bin/python libs/tickets/vectors/generate_vectors.py > libs/tickets/src/__fixtures__/vectors.json

Nothing in the build or the tests runs it; the JSON it printed is committed.
"""

import json

from eth_abi.packed import encode_packed
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_keys import keys
from eth_utils import keccak

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
MAX256 = 2**256 - 1


def hex0x(data: bytes) -> str:
    return "0x" + data.hex()


def ticket_vector(name, key_hex, recipient, face_value, win_prob, nonce, rand, creation_round, block_hash):
    key = bytes.fromhex(key_hex[2:])
    sender = keys.PrivateKey(key).public_key.to_checksum_address().lower()
    rand_bytes = rand.to_bytes(32, "big")
    rand_hash = keccak(rand_bytes)
    aux = creation_round.to_bytes(32, "big") + bytes.fromhex(block_hash[2:])
    packed = encode_packed(
        ["address", "address", "uint256", "uint256", "uint256", "bytes32", "bytes"],
        [recipient, sender, face_value, win_prob, nonce, rand_hash, aux],
    )
    ticket_hash = keccak(packed)
    signed = Account.sign_message(encode_defunct(primitive=ticket_hash), private_key=key)
    sig = signed.r.to_bytes(32, "big") + signed.s.to_bytes(32, "big") + bytes([signed.v])
    win_value = int.from_bytes(keccak(sig + rand_bytes), "big")
    # The same signature with s mirrored into the upper half and v flipped: plain ecrecover still
    # yields the sender, but the contract's ECDSA.recover refuses it.
    high_s = signed.r.to_bytes(32, "big") + (N - signed.s).to_bytes(32, "big") + bytes([55 - signed.v])
    high_s_signer = Account._recover_hash(signed.message_hash, vrs=(55 - signed.v, signed.r, N - signed.s)).lower()
    return {
        "name": name,
        "privateKey": key_hex,
        "ticket": {
            "recipient": recipient,
            "sender": sender,
            "faceValue": str(face_value),
            "winProb": str(win_prob),
            "senderNonce": str(nonce),
            "recipientRandHash": hex0x(rand_hash),
            "creationRound": str(creation_round),
            "creationRoundBlockHash": block_hash,
            "recipientRand": hex0x(rand_bytes),
        },
        "packed": hex0x(packed),
        "ticketHash": hex0x(ticket_hash),
        "ethSignedMessageHash": hex0x(signed.message_hash),
        "sig": hex0x(sig),
        "winValue": str(win_value),
        "wins": win_value < win_prob,
        "highSSig": hex0x(high_s),
        "highSRecoversTo": high_s_signer,
    }


vectors = [
    ticket_vector(
        "reference winner (libs/protocol example ticket)",
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
        "0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115",
        1_000_000_000_000_000,
        57896044618658097711785492504343953926634992332820282019728792003956564819967,
        7,
        0xEF9BB082521B7BEE3AF84131ECE48E79A28990C120850E6EA0C5DF07DC539C95,
        3520,
        "0x20b53acf0daefc8c6ad68c861fb3b543ca541abd101abc1edfcbf6606b838ef4",
    ),
    ticket_vector(
        "widest values (every uint at its maximum)",
        "0x0000000000000000000000000000000000000000000000000000000000000001",
        "0xffffffffffffffffffffffffffffffffffffffff",
        MAX256,
        MAX256,
        2**32 - 1,
        MAX256,
        MAX256,
        "0x" + "ff" * 32,
    ),
    ticket_vector(
        "tiny win probability (a loser)",
        "0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f",
        "0x00000000000000000000000000000000000000aa",
        1,
        1,
        1,
        1,
        0,
        "0x" + "00" * 31 + "01",
    ),
]

published = {
    "source": "web3.js documentation, web3.eth.accounts.sign('Some data', privateKey)",
    "privateKey": "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    "address": "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
    "message": "Some data",
    "messageHash": "0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655",
    "signature": "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c",
}
check = Account.sign_message(encode_defunct(text=published["message"]), private_key=published["privateKey"])
assert hex0x(check.message_hash) == published["messageHash"]
assert hex0x(check.signature) == published["signature"]

print(json.dumps({"tickets": vectors, "published": published}, indent=2))
