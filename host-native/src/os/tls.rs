//! TLS for Baton's clients (the team server, an OpenTelemetry endpoint): the system's trusted
//! roots (`SSL_CERT_FILE` and `SSL_CERT_DIR` when set), plus a PEM file a setting names.

use baton_core::Error;
use std::path::Path;

/// A client configuration trusting the system's roots and, when given, the certificates of
/// `root_file` (`setting` names where that file came from, for messages).
pub fn client_config(
    root_file: Option<&Path>,
    setting: &str,
) -> Result<rustls::ClientConfig, Error> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(path) = root_file {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                Error::invalid(
                    setting,
                    format!(
                        "{}: not a readable PEM certificate file: {e}",
                        path.display()
                    ),
                )
            })?;
        if certs.is_empty() {
            return Err(Error::invalid(
                setting,
                format!("{} holds no certificate", path.display()),
            ));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| Error::invalid(setting, format!("{}: {e}", path.display())))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::internal(format!("TLS could not be set up: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
