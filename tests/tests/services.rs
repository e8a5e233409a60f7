//! Service plugins (interface 2.5) through the plugin host with real libraries: a slot
//! plugin calls a service plugin by name; unknown names, oversized requests and answers,
//! calls outside the simulation and a panicking service are each refused with their own
//! error kind, the panicking service is stopped and the mission goes on; the service's
//! state is part of the state hash.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_abi::ErrorKind;
use iron3d_e2e::plugins::{host, kernel};
use iron3d_kernel::{Kernel, ObjectHandle};
use iron3d_plugin_host::{HostEvent, PluginHost, ServiceSpec};
use iron3d_test_counter::body::SERVICE_SCRIPT;

const CALLER: &str = "ai iron3d_test_counter service-caller\n";

fn echo(factory: &str) -> ServiceSpec {
    ServiceSpec {
        name: "echo".into(),
        library: "iron3d_test_counter".into(),
        factory: factory.into(),
        origin: "test".into(),
    }
}

fn outcome(k: &Kernel, h: ObjectHandle, tick: u64) -> [u32; 4] {
    k.world()
        .get(h)
        .unwrap()
        .props
        .first(format!("Svc{tick}").as_bytes())
        .unwrap_or_else(|| panic!("no outcome of tick {tick}"))
        .raw_value
}

fn run(host: &mut PluginHost, services: &[ServiceSpec], ticks: u64) -> (Kernel, ObjectHandle) {
    let (mut k, handles) = kernel(host, CALLER, 1, 9);
    k.add_system(Box::new(host.start_services(services)))
        .unwrap();
    for _ in 0..ticks {
        k.step(&[]).unwrap();
    }
    (k, handles[0])
}

#[test]
fn a_slot_plugin_calls_a_service_and_every_misuse_has_its_error() {
    assert_eq!(SERVICE_SCRIPT.len(), 7);
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 9);
    let (k, first) = run(&mut host, &[echo("service-echo")], 7);
    let ok = u32::MAX;
    // mission_start runs outside the simulation: no services there.
    assert_eq!(outcome(&k, first, 0)[0], ErrorKind::FORBIDDEN.0);
    // 1: echo of 0, 1, 2.
    assert_eq!(outcome(&k, first, 1), [ok, 3, 0, 0]);
    // 2: an unknown name.
    assert_eq!(outcome(&k, first, 2)[0], ErrorKind::NO_PROVIDER.0);
    // 3 and 4: a request and an answer over the limit.
    assert_eq!(outcome(&k, first, 3)[0], ErrorKind::INVALID.0);
    assert_eq!(outcome(&k, first, 4)[0], ErrorKind::INVALID.0);
    // 5: the service counted the calls that reached it (1, 4 and this one).
    assert_eq!(outcome(&k, first, 5), [ok, 8, 3, 0]);
    // 6: a panic reaches the caller as PANICKED; 7: the service is stopped.
    assert_eq!(outcome(&k, first, 6)[0], ErrorKind::PANICKED.0);
    assert_eq!(outcome(&k, first, 7)[0], ErrorKind::NO_PROVIDER.0);
    assert_eq!(
        host.faults(iron3d_abi::SlotKind::Ai),
        0,
        "the caller runs on"
    );
    let events: Vec<HostEvent> = host.events().try_iter().collect();
    assert!(
        events.iter().any(|e| matches!(e, HostEvent::ServiceLoaded { service, instance } if service == "echo" && instance.contains("service-echo"))),
        "{events:?}"
    );
    assert!(
        host.service_report().is_empty(),
        "the stopped service is gone"
    );
}

#[test]
fn the_state_hash_covers_the_service_and_a_bad_factory_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    // Up to tick 5 the two runs call the same service the same way: equal hashes.
    let mut a = host(dir.path(), 9);
    let (ka, _) = run(&mut a, &[echo("service-echo")], 5);
    let dir_b = tempfile::tempdir().unwrap();
    let mut b = host(dir_b.path(), 9);
    let (kb, _) = run(&mut b, &[echo("service-echo")], 5);
    assert_eq!(ka.state_hash(), kb.state_hash());
    assert_eq!(a.service_report().len(), 1);
    assert!(a.service_report()[0].1.contains("service-echo"));

    // No such factory: reported, the mission starts without the service.
    let dir_c = tempfile::tempdir().unwrap();
    let mut c = host(dir_c.path(), 9);
    let (kc, first) = run(&mut c, &[echo("no-such-factory")], 2);
    let events: Vec<HostEvent> = c.events().try_iter().collect();
    assert!(
        events.iter().any(|e| matches!(e, HostEvent::ServiceLoadFailed { service, reason } if service == "echo" && reason.contains("no-such-factory"))),
        "{events:?}"
    );
    assert_eq!(outcome(&kc, first, 1)[0], ErrorKind::NO_PROVIDER.0);
    // Its absence shows in the hash (no service state, other outcomes).
    assert_ne!(kc.state_hash(), {
        let dir_d = tempfile::tempdir().unwrap();
        let mut d = host(dir_d.path(), 9);
        run(&mut d, &[echo("service-echo")], 2).0.state_hash()
    });
    // A name that breaks the rule is refused before anything loads.
    let dir_e = tempfile::tempdir().unwrap();
    let mut e = host(dir_e.path(), 9);
    let mut bad = echo("service-echo");
    bad.name = "Echo Service".into();
    let _ = run(&mut e, &[bad], 1);
    let events: Vec<HostEvent> = e.events().try_iter().collect();
    assert!(
        events.iter().any(|ev| matches!(ev, HostEvent::ServiceLoadFailed { reason, .. } if reason.contains("not a valid service name"))),
        "{events:?}"
    );
}
