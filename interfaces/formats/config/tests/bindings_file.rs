//! The shipped `config/bindings.ini` parses, binds every action, and its overlay rules
//! hold for a user's file.

use iron3d_config::bindings::{self, Bindings, Input, OVERVIEW, POSSESSED};

fn shipped() -> Bindings {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../config/bindings.ini");
    let bytes = std::fs::read(&path).expect("config/bindings.ini");
    Bindings::parse(&bytes, "config/bindings.ini").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_shipped_defaults_bind_every_action() {
    let b = shipped();
    let unbound: Vec<&str> = b.unbound().iter().map(|a| a.name).collect();
    assert!(unbound.is_empty(), "unbound by default: {unbound:?}");
    assert_eq!(b.iter().count(), bindings::ACTIONS.len());
    // Keyboard, mouse and gamepad each drive something in both modes.
    for (input, mode, action) in [
        ("Key:W", OVERVIEW, "camera.pan_forward"),
        ("Key:W", POSSESSED, "unit.forward"),
        ("Mouse:Right", OVERVIEW, "order.move"),
        ("Mouse:Left", POSSESSED, "unit.fire"),
        ("Pad:DPadLeft", POSSESSED, "camera.left"),
        ("PadAxis:LeftStickX", POSSESSED, "unit.steer"),
        ("Key:Escape", OVERVIEW, "game.menu"),
    ] {
        let got = b
            .action_of(Input::parse(input).unwrap(), mode)
            .map(|a| a.name);
        assert_eq!(got, Some(action), "{input}");
    }
}

#[test]
fn a_user_file_rebinds_over_the_defaults() {
    let mut b = shipped();
    let user = Bindings::parse(
        b"order.stop = Key:Z, Pad:North\nunit.fire = Key:F\n",
        "user.ini",
    )
    .unwrap();
    b.overlay(user).unwrap();
    let z = Input::parse("key:z").unwrap();
    assert_eq!(b.action_of(z, OVERVIEW).unwrap().name, "order.stop");
    assert!(
        b.action_of(Input::parse("Key:X").unwrap(), OVERVIEW)
            .is_none(),
        "X is free"
    );
    assert!(
        b.action_of(Input::parse("Mouse:Left").unwrap(), POSSESSED)
            .is_none()
    );
    // Taking an input another default action keeps is refused, naming both places.
    let clash = Bindings::parse(b"order.stop = Key:P\n", "user.ini").unwrap();
    let e = b.overlay(clash).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "user.ini:1:14: Key:P is already bound to order.patrol at config/bindings.ini:"
        ),
        "{e}"
    );
}
