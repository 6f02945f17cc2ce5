package dev.tessera.plugin.app;

import java.nio.file.Path;

/**
 * What the plugin's life with the kubelet needs of the configuration: who it is and where its two
 * sockets go.
 *
 * @param driverName the DRA driver name it registers as
 * @param nodeName the node it serves (logged)
 * @param registrationSocket the socket the kubelet's plugin watcher finds
 * @param draSocket the socket the kubelet dials for DRA and health calls
 */
public record KubeletSockets(
    String driverName, String nodeName, Path registrationSocket, Path draSocket) {}
