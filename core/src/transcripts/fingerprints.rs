//! Fingerprints: 128-bit hashes of byte strings that stand for them as deduplication keys,
//! and the hasher a map keyed by them uses.

/// A 128-bit fingerprint of some byte strings (two FNV-1a passes), for deduplication keys
/// that cost 16 bytes instead of a string.
pub(crate) fn fingerprint(parts: &[&[u8]]) -> u128 {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for part in parts {
        for &byte in part.iter().chain(std::iter::once(&0x1f)) {
            a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ u64::from(byte))
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    (u128::from(a) << 64) | u128::from(b)
}

/// Hashes a [`fingerprint`] for a map keyed by it: the key is already a hash, so its two
/// halves are folded together rather than hashed again (SipHash cost a usage report more than
/// its maps' other work). Other keys are hashed with FNV-1a.
#[derive(Debug, Default, Clone, Copy)]
pub struct FingerprintHasher(u64);

impl std::hash::Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0 ^ 0xcbf2_9ce4_8422_2325;
        for &byte in bytes {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn write_u128(&mut self, n: u128) {
        self.0 ^= (n as u64) ^ ((n >> 64) as u64);
    }
}

/// Builds [`FingerprintHasher`]s.
pub type Fingerprinted = std::hash::BuildHasherDefault<FingerprintHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn a_map_keyed_by_fingerprints_folds_them_and_keeps_them_apart() {
        let keys: Vec<u128> = (0..1000u32)
            .map(|n| fingerprint(&[n.to_string().as_bytes()]))
            .collect();
        let hashes: std::collections::HashSet<u64> = keys
            .iter()
            .map(|k| Fingerprinted::default().hash_one(k))
            .collect();
        assert_eq!(hashes.len(), keys.len());
        let mut map: std::collections::HashMap<u128, usize, Fingerprinted> = Default::default();
        for (n, key) in keys.iter().enumerate() {
            map.insert(*key, n);
        }
        assert!(keys.iter().enumerate().all(|(n, k)| map[k] == n));
        // Other keys are hashed by their bytes.
        assert_ne!(
            Fingerprinted::default().hash_one("a"),
            Fingerprinted::default().hash_one("b")
        );
    }
}
