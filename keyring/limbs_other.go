//go:build !((amd64 || arm64) && !force32bit)

package keyring

import "github.com/oasisprotocol/curve25519-voi/curve"

// limbsReadable is false: on this platform curve25519-voi's points are not
// read in place, and each is encoded by voi.
const limbsReadable = false

func limbs(*curve.EdwardsPoint) (x, y, z *[5]uint64) {
	panic("keyring: point limbs are not readable on this platform")
}
