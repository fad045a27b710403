//! A share locked with a password: the content encrypted with AES-256-GCM under a key derived
//! by PBKDF2-HMAC-SHA-256 from the password and a random salt, so that the page can open it with
//! the browser's own WebCrypto and nothing else. The salt and nonce are arguments (the core
//! has no randomness): the host draws them fresh for every file.

use crate::error::{Error, Result};
use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};

/// The rounds of PBKDF2 a new share uses (OWASP's figure for PBKDF2-HMAC-SHA-256).
pub const ITERATIONS: u32 = 600_000;

/// Content locked with a password, and what opening it needs besides the password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    /// The salt of the key derivation.
    pub salt: [u8; 16],
    /// The AES-GCM nonce.
    pub nonce: [u8; 12],
    /// The rounds of PBKDF2.
    pub iterations: u32,
    /// The encrypted content with its 16-byte tag at the end (WebCrypto's layout).
    pub ciphertext: Vec<u8>,
}

fn key(password: &str, salt: &[u8], iterations: u32) -> [u8; 32] {
    let mut key = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password.as_bytes(), salt, iterations, &mut key);
    key
}

/// `plain` locked with `password`; `salt` and `nonce` must be fresh random bytes.
pub fn seal(
    plain: &[u8],
    password: &str,
    salt: [u8; 16],
    nonce: [u8; 12],
    iterations: u32,
) -> Result<Sealed> {
    if password.is_empty() {
        return Err(Error::invalid(
            "password",
            "the password is empty: give one, or share without --password",
        ));
    }
    if iterations == 0 {
        return Err(Error::invalid(
            "iterations",
            "PBKDF2 needs at least one round",
        ));
    }
    let cipher = Aes256Gcm::new(&key(password, &salt, iterations).into());
    let ciphertext = cipher
        .encrypt(Nonce::from_slice(&nonce), plain)
        .map_err(|_| Error::internal("AES-GCM refused to encrypt the content"))?;
    Ok(Sealed {
        salt,
        nonce,
        iterations,
        ciphertext,
    })
}

/// What `sealed` holds, when `password` is the one it was sealed with.
pub fn open(sealed: &Sealed, password: &str) -> Result<Vec<u8>> {
    let cipher = Aes256Gcm::new(&key(password, &sealed.salt, sealed.iterations).into());
    cipher
        .decrypt(
            Nonce::from_slice(&sealed.nonce),
            sealed.ciphertext.as_slice(),
        )
        .map_err(|_| Error::invalid("password", "that password does not open this share"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_right_password_opens_it_and_a_wrong_one_does_not() {
        let sealed = seal(b"planted words", "correct horse", [7; 16], [9; 12], 1_000).unwrap();
        assert!(
            !sealed.ciphertext.windows(7).any(|w| w == b"planted"),
            "the ciphertext holds the plaintext"
        );
        assert_eq!(sealed.ciphertext.len(), b"planted words".len() + 16);
        assert_eq!(open(&sealed, "correct horse").unwrap(), b"planted words");
        assert!(open(&sealed, "wrong horse").is_err());
        let mut tampered = sealed.clone();
        tampered.ciphertext[0] ^= 1;
        assert!(open(&tampered, "correct horse").is_err(), "the tag holds");
        assert!(seal(b"x", "", [0; 16], [0; 12], 1).is_err());
    }

    #[test]
    fn the_key_is_pbkdf2_hmac_sha256_as_webcrypto_derives_it() {
        // RFC 7914's PBKDF2-HMAC-SHA-256 vector (password "passwd", salt "salt", 1 round),
        // first 32 bytes: what WebCrypto's deriveKey gives for the same inputs.
        let key = key("passwd", b"salt", 1);
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        );
    }
}
